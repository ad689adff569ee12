// Export and file naming: a step's numbers as CSV, names that never
// overwrite an earlier export, the path shown in the status line.
#ifndef TT_EXPORT_H
#define TT_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "model.h"
#include "trace.h"

// The PNG and CSV paths for step s in dir: tracer-<stage id>[-h<head>][-step<n>],
// numbered -2, -3… past the files already there. Returns 0, or -1 when dir's
// name is too long.
int exp_names(const char *dir, const Step *s, char *png, char *csv, size_t size, Error *err);
// base + ext, or base-2 + ext, base-3 + ext…: a name no earlier export has.
void exp_free_name(const char *base, const char *ext, char *out, size_t size);
// The step's values with its labels, as CSV (RFC 4180). Returns 0 or -1.
int exp_write_csv(const Step *s, const char *path, Error *err);
// The absolute form of a file just written, for the status line. Returns out.
const char *exp_shown_path(const char *path, char *out, size_t size);
// Renders one step of a trace into a PNG of w × h at scale, with title and
// formula (the headless export, and the window's Ctrl+S); cmap is a
// Colormap, an int so that both modules hand this function on as it is
// (AppModule.render_step_png).
int exp_render_png(const Model *m, const Trace *t, int step, int w, int h, float scale, bool dark, int cmap, const char *font,
                   const char *path, Error *err);

#endif
