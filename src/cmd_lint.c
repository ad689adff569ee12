// The lint subcommand: checks lesson files (docs/LESSONS.md), one
// "file:line: problem" a line on stderr, exit 1 if any.
#include <limits.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "lesson.h"

int cmd_lint(const CliArgs *cl) {
    if (!cl->n_files) return cli_usage_error("%s needs one or more lesson files", "lint");
    char dir[2 * PATH_MAX];
    cli_models_dir(dir, sizeof dir);  // for lessons that name a shipped model
    int total = 0;
    for (int i = 0; i < cl->n_files; i++) {
        LesProblems pr = {0};
        int n = les_lint(cl->files[i], dir, &pr);
        for (int k = 0; k < pr.n; k++) fprintf(stderr, "%s\n", pr.msgs[k]);
        if (!n) printf("%s: ok\n", cl->files[i]);
        total += n;
        les_problems_deinit(&pr);
    }
    if (total) fprintf(stderr, "%d problem%s\n", total, total == 1 ? "" : "s");
    return total ? 1 : 0;
}
