// The safetensors file format: an 8-byte little-endian header length N, N
// bytes of JSON header ({"__metadata__": {str: str}, name: {"dtype", "shape",
// "data_offsets": [begin, end]}}), then the data buffer the offsets point into.
#ifndef TT_SAFETENSORS_H
#define TT_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define ST_MAX_DIMS 8

typedef struct {
    const char *name;
    char dtype[16];               // as in the header: "F32", "F16", "I64", ...
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    size_t begin, end;            // byte offsets into the data buffer
} StTensor;

typedef struct StFile StFile;

// Opens and validates a file: header length within the file, valid JSON,
// every tensor entry well-formed, no duplicate names, offsets in range,
// sized for dtype x shape, not overlapping and covering the buffer.
// Errors start with the path. Returns NULL on error.
StFile *st_open(const char *path, Error *err);
// The same, reading only the header now and each tensor when it is asked
// for, straight into its destination (a model's parameters: no copy of the
// whole file in between). A file cut short since gives a short read and an
// error naming the tensor, not a fault.
StFile *st_open_lazy(const char *path, Error *err);
void st_free(StFile *f);

const char *st_path(const StFile *f);
int st_count(const StFile *f);
const StTensor *st_tensor_at(const StFile *f, int i);
// The tensor with this name, or NULL.
const StTensor *st_find(const StFile *f, const char *name);
// A __metadata__ value, or NULL when the key is absent.
const char *st_meta(const StFile *f, const char *key);

// Copies an F32 tensor into out (numel floats). Fails, naming the tensor, on
// another dtype or on a NaN/Inf value.
int st_read_f32(const StFile *f, const StTensor *t, float *out, Error *err);
// Copies an F16 tensor into out (numel floats), each widened exactly. Fails,
// naming the tensor, on another dtype or on a NaN/Inf value.
int st_read_f16(const StFile *f, const StTensor *t, float *out, Error *err);
// The half-precision value nearest to v (ties to even), as F16 stores it.
uint16_t st_half_from_float(float v);
float st_float_from_half(uint16_t h);

typedef struct StWriter StWriter;

StWriter *st_writer_new(void);
void st_writer_free(StWriter *w);
// Metadata entry (both strings copied). Returns 0 or -1.
int st_writer_meta(StWriter *w, const char *key, const char *value);
// F32 tensor; data is not copied and must live until st_writer_save.
int st_writer_add_f32(StWriter *w, const char *name, const float *data, int ndim, const int64_t *shape);
// The same stored as F16 (st_half_from_float): half the bytes, about three decimal digits.
int st_writer_add_f16(StWriter *w, const char *name, const float *data, int ndim, const int64_t *shape);
// Writes the file atomically (temporary file, then rename).
int st_writer_save(const StWriter *w, const char *path, Error *err);

#endif
