// The window subcommand (and the bare command): opens the window, whose
// code is in the app module.
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "pages.h"

int cmd_window(const CliArgs *cl) {
    AppWindowArgs w = {.decode = cli_decode_options(cl)};
    const char *sentences = NULL;
    cli_take(cl, "--src", &w.src);
    cli_take(cl, "--target", &w.target);
    cli_take(cl, "--model", &w.model_path);
    cli_take(cl, "--script", &w.script);
    cli_take(cl, "--lesson", &w.lesson);
    cli_take(cl, "--sentences", &sentences);
    cli_take(cl, "--dark", &w.dark);
    cli_take(cl, "--cmap", &w.cmap);
    cli_take(cl, "--scale", &w.scale);
    char compare[2 * PATH_MAX];
    if (cli_take(cl, "--compare", &w.compare_path)) w.compare_path = cli_model_file(w.compare_path, compare, sizeof compare);
    const AppModule *app = cli_app_module();
    if (!app) return 1;
    pg_warm_heap(16u << 20);  // the font, the trace, text and lessons: touched at once for the first frame
    char buf[2 * PATH_MAX], dir[2 * PATH_MAX];
    // the settings offer the shipped models' folder, beside the default model
    snprintf(dir, sizeof dir, "%s", cli_default_model(buf, sizeof buf));
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    SentenceList *list = NULL;
    if (sentences) {  // read before any window opens, so a bad list is one line on stderr
        Error err;
        if (!(list = sl_load(sentences, &err))) return cli_fail(err.msg);
    }
    // the lessons sit beside the assets: <data>/lessons
    char lessons[2 * PATH_MAX + 16];
    snprintf(lessons, sizeof lessons, "%s", slash ? dir : "./models");
    for (int up = 0; up < 2; up++) {  // <data>/assets/models → <data>
        char *cut = strrchr(lessons, '/');
        if (cut) *cut = '\0';
        else snprintf(lessons, sizeof lessons, ".");
    }
    snprintf(lessons + strlen(lessons), sizeof lessons - strlen(lessons), "/lessons");
    if (!w.model_path) w.model_path = buf;
    w.sentences = list;
    w.models_dir = slash ? dir : NULL;
    w.lessons_dir = lessons;
    // a bare run opens on the lesson picker
    w.picker = !w.src && !w.lesson && !sentences && !w.target && !w.script;
    int rc = app->window_run(&w);
    sl_free(list);
    return rc;
}
