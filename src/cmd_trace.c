// The trace subcommand: every stage of a sentence's computation as JSON
// (docs/TRACE.md), to standard output or atomically to a file, or as NumPy's
// .npz to a file.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "fileio.h"
#include "twin.h"

typedef struct {
    const char *src, *target, *model, *out, *format, *compare;
    DecodeOptions dec;
} TraceArgs;

typedef enum { FORMAT_JSON, FORMAT_JSON_SHARED, FORMAT_NPZ } Format;

// Writes the trace (with the comparison of two models, or NULL); 0, or -1
// with err (a failed write is left in the stream's error).
static int write_trace(const Trace *t, FILE *fp, const char *src, Format format, const Twin *tw, Error *err) {
    if (format == FORMAT_NPZ) return trace_write_npz(t, fp, src, err);
    TraceJsonMore more = {twin_write_json, tw};
    int rc = trace_write_json_more(t, fp, src, format == FORMAT_JSON_SHARED, tw ? &more : NULL);
    if (rc && !ferror(fp)) err_set(err, "out of memory while writing the trace");
    return rc;
}

// Writes the trace to path; returns 0 or 1.
static int write_file(const Trace *t, const char *src, const char *path, Format format, const Twin *tw) {
    AtomicFile af;
    Error err;
    if (fio_atomic_open(&af, path, &err)) return cli_fail(err.msg);
    // a failed write leaves the stream's error set: the commit says why and removes the temporary file
    if (write_trace(t, af.fp, src, format, tw, &err) && !ferror(af.fp)) {
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
    cli_take(cl, "--compare", &a.compare);
    Format format = !a.format || !strcmp(a.format, "json") ? FORMAT_JSON : !strcmp(a.format, "npz") ? FORMAT_NPZ : FORMAT_JSON_SHARED;
    if (!a.src) return cli_usage_error("%s needs --src TEXT", cl->cmd);
    if (format == FORMAT_NPZ && !a.out) return cli_usage_error("%s --format npz needs --out FILE (the file is binary)", cl->cmd);
    if (a.compare && format == FORMAT_NPZ) return cli_usage_error("%s --compare is for the JSON formats", cl->cmd);
    CliRun r;
    Twin tw = {0};
    char other[4096];
    Error err = {0};
    int rc = cli_run(&r, a.model, cli_snapshot(cl), a.src, a.target, &a.dec);
    if (!rc && a.compare && twin_run(&tw, r.trace, cli_model_file(a.compare, other, sizeof other), NULL, 0, &err)) rc = cli_fail(err.msg);
    const Twin *with = a.compare ? &tw : NULL;
    if (!rc && a.out) rc = write_file(r.trace, a.src, a.out, format, with);
    else if (!rc && (write_trace(r.trace, stdout, a.src, format, with, &err) || fflush(stdout) || ferror(stdout)))
        rc = cli_fail(err.msg[0] ? err.msg : "writing the trace to standard output failed");
    twin_deinit(&tw);
    cli_run_deinit(&r);
    return rc;
}
