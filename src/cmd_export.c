// The export subcommand: one stage of a sentence's trace drawn to a PNG,
// with no window or display (the drawing is in the app module).
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "pages.h"

typedef struct {
    const char *src, *target, *model, *out, *stage;
    DecodeOptions dec;
    int head, step, width, height, cmap;
    bool head_set, step_set, dark;
    float scale;
} ExportArgs;

// The step to draw: the first of the stage, at the head and decoding step
// asked for; -1 after saying there is none.
static int find_step(const Trace *t, const ExportArgs *a) {
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i);
        char id[128];
        if (strcmp(trace_stage_id(s, id, sizeof id), a->stage)) continue;
        if ((a->head_set && s->head != a->head) || (a->step_set && s->dstep != a->step)) continue;
        return i;
    }
    fprintf(stderr, "transformer-tracer: this trace has no stage \"%s\"", ERR_QUOTE(a->stage, 60));
    if (a->head_set) fprintf(stderr, " with head %d", a->head);
    if (a->step_set) fprintf(stderr, " at decoding step %d", a->step);
    // --stages records only what it matches: say so rather than send the user to the list
    if (a->dec.stages && fnmatch(a->dec.stages, a->stage, 0) != 0) {
        fprintf(stderr, ": --stages \"%s\" leaves it out of the trace\n", ERR_QUOTE(a->dec.stages, 60));
        return -1;
    }
    fprintf(stderr, " (stage ids: docs/TRACE.md; try trace --src to list them)\n");
    return -1;
}

int cmd_export(const CliArgs *cl) {
    ExportArgs a = {.dec = cli_decode_options(cl), .width = 1200, .height = 800, .scale = 1.0f};
    cli_take(cl, "--src", &a.src);
    cli_take(cl, "--target", &a.target);
    cli_take(cl, "--model", &a.model);
    cli_take(cl, "--out", &a.out);
    cli_take(cl, "--stage", &a.stage);
    a.head_set = cli_take(cl, "--head", &a.head);
    a.step_set = cli_take(cl, "--step", &a.step);
    cli_take(cl, "--width", &a.width);
    cli_take(cl, "--height", &a.height);
    cli_take(cl, "--scale", &a.scale);
    cli_take(cl, "--dark", &a.dark);
    cli_take(cl, "--cmap", &a.cmap);
    if (!a.src || !a.stage || !a.out) return cli_usage_error("%s needs --src TEXT, --stage ID and --out FILE.png", "export");
    const AppModule *app = cli_draw_module();
    if (!app) return 1;
    pg_warm_heap((size_t)9 << 19);  // 4.5 MB: the font, the trace and the drawing allocate ~4.3 MB (4.5 at --scale 2) and touch it at once
    Error err;
    const char *font = app->find_font(&err);
    if (!font) return cli_fail(err.msg);
    CliRun r;
    int rc = cli_run(&r, a.model, cli_snapshot(cl), a.src, a.target, &a.dec), index = -1;
    if (!rc) rc = (index = find_step(r.trace, &a)) < 0;
    if (!rc && app->render_step_png(r.model, r.trace, index, a.width, a.height, a.scale, a.dark, a.cmap, font, a.out, &err))
        rc = cli_fail(err.msg);
    cli_run_deinit(&r);
    return rc;
}
