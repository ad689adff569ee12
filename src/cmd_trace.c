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

typedef enum { FORMAT_JSON, FORMAT_JSON_SHARED, FORMAT_NPZ } Format;

// Writes the trace; 0, or -1 with err (a failed write is left in the stream's error).
static int write_trace(const Trace *t, FILE *fp, const char *src, Format format, Error *err) {
    if (format == FORMAT_NPZ) return trace_write_npz(t, fp, src, err);
    int rc = format == FORMAT_JSON ? trace_write_json(t, fp, src) : trace_write_json_shared(t, fp, src);
    if (rc && !ferror(fp)) err_set(err, "out of memory while writing the trace");
    return rc;
}

// Writes the trace to path; returns 0 or 1.
static int write_file(const Trace *t, const char *src, const char *path, Format format) {
    AtomicFile af;
    Error err;
    if (fio_atomic_open(&af, path, &err)) return cli_fail(err.msg);
    // a failed write leaves the stream's error set: the commit says why and removes the temporary file
    if (write_trace(t, af.fp, src, format, &err) && !ferror(af.fp)) {
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
    Format format = !a.format || !strcmp(a.format, "json") ? FORMAT_JSON : !strcmp(a.format, "npz") ? FORMAT_NPZ : FORMAT_JSON_SHARED;
    if (!a.src) return cli_usage_error("%s needs --src TEXT", cl->cmd);
    if (format == FORMAT_NPZ && !a.out) return cli_usage_error("%s --format npz needs --out FILE (the file is binary)", cl->cmd);
    CliRun r;
    int rc = cli_run(&r, a.model, a.src, a.target, &a.dec);
    Error err = {0};
    if (!rc && a.out) rc = write_file(r.trace, a.src, a.out, format);
    else if (!rc && (write_trace(r.trace, stdout, a.src, format, &err) || fflush(stdout) || ferror(stdout)))
        rc = cli_fail(err.msg[0] ? err.msg : "writing the trace to standard output failed");
    cli_run_deinit(&r);
    return rc;
}
