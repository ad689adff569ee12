// The trace subcommand: every stage of a sentence's computation as JSON
// (docs/TRACE.md), to standard output or atomically to a file, or as NumPy's
// .npz to a file.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "fileio.h"

typedef struct {
    const char *src, *target, *model, *out, *format;
    DecodeOptions dec;
} TraceArgs;

// Writes the JSON or the npz file to path; returns 0 or 1.
static int write_file(const Trace *t, const char *src, const char *path, bool npz) {
    AtomicFile af;
    Error err;
    if (fio_atomic_open(&af, path, &err)) return cli_fail(err.msg);
    // a failed write leaves the stream's error set: the commit says why and removes the temporary file
    if (!npz) (void)trace_write_json(t, af.fp, src);
    else if (trace_write_npz(t, af.fp, src, &err)) {
        fio_atomic_abort(&af);
        return cli_fail(err.msg);
    }
    return fio_atomic_commit(&af, &err) ? cli_fail(err.msg) : 0;
}

int cmd_trace(const CliArgs *cl) {
    TraceArgs a = {.dec = cli_decode_options(cl)};
    cli_take(cl, "--src", &a.src);
    cli_take(cl, "--target", &a.target);
    cli_take(cl, "--model", &a.model);
    cli_take(cl, "--out", &a.out);
    cli_take(cl, "--format", &a.format);
    bool npz = a.format && !strcmp(a.format, "npz");
    if (!a.src) return cli_usage_error("%s needs --src TEXT", cl->cmd);
    if (npz && !a.out) return cli_usage_error("%s --format npz needs --out FILE (the file is binary)", cl->cmd);
    CliRun r;
    int rc = cli_run(&r, a.model, a.src, a.target, &a.dec);
    if (!rc && a.out) rc = write_file(r.trace, a.src, a.out, npz);
    else if (!rc && (trace_write_json(r.trace, stdout, a.src) || fflush(stdout) || ferror(stdout)))
        rc = cli_fail("writing the trace to standard output failed");
    cli_run_deinit(&r);
    return rc;
}
