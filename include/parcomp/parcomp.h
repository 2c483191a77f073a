/* parcomp's C API: .bz2 and the parcomp format on every CPU core and GPU of the host, in the
 * spirit of bzlib.h and zstd.h. Every call returns PARCOMP_OK (0) or a negative error code;
 * parcomp_last_error() then says what happened, in words, for the calling thread.
 *
 *   parcomp_options o;
 *   parcomp_options_init(&o);                     .bz2 at level 9, every CPU core and GPU
 *   void* packed; size_t packed_size;
 *   if (parcomp_compress_buffer(data, size, &packed, &packed_size, &o) != PARCOMP_OK)
 *     fprintf(stderr, "%s\n", parcomp_last_error());
 *   parcomp_free(packed);
 */
#ifndef PARCOMP_H
#define PARCOMP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PARCOMP_OK 0
#define PARCOMP_ERROR_USAGE (-1)    /* a broken contract: bad options or arguments */
#define PARCOMP_ERROR_DATA (-2)     /* the input is not a stream parcomp reads, or is damaged */
#define PARCOMP_ERROR_IO (-3)       /* reading or writing failed (a descriptor, a callback) */
#define PARCOMP_ERROR_GPU (-4)      /* a GPU failed (with require_gpu: none could work) */
#define PARCOMP_ERROR_MEMORY (-5)   /* host memory ran out */
#define PARCOMP_ERROR_INTERNAL (-6) /* anything else: a bug */

#define PARCOMP_FORMAT_BZ2 0
#define PARCOMP_FORMAT_PARCOMP 1

typedef struct parcomp_options {
  int format;             /* what compression writes: PARCOMP_FORMAT_BZ2 (default) or _PARCOMP */
  int level;              /* .bz2: 1 .. 9 (default 9) */
  int threads;            /* CPU workers: -1 every hardware thread (default), 0 none */
  int use_gpus;           /* 1 (default): the GPUs where the input is large enough; 0: none */
  int require_gpu;        /* 1: the GPUs alone, an error when none can work */
  unsigned long long input_size; /* the input's size when known, 0 when not (default) */
} parcomp_options;

/* The defaults above. */
void parcomp_options_init(parcomp_options* options);

/* A whole buffer in, a buffer out that the library allocates (*dst, *dst_size; release it with
 * parcomp_free, also when empty). options may be NULL (the defaults). */
int parcomp_compress_buffer(const void* src, size_t src_size, void** dst, size_t* dst_size, const parcomp_options* options);
int parcomp_decompress_buffer(const void* src, size_t src_size, void** dst, size_t* dst_size, const parcomp_options* options);
void parcomp_free(void* p);

/* File descriptors (files, pipes), read to their end and written; not closed. */
int parcomp_compress_fd(int in_fd, int out_fd, const parcomp_options* options);
int parcomp_decompress_fd(int in_fd, int out_fd, const parcomp_options* options);

/* The caller's functions: read returns the bytes it put into buf (0 at the end) or -1 on an
 * error; write returns 0, or -1 on an error. They are called from the calling thread's workers,
 * one call at a time. */
typedef long long (*parcomp_read_fn)(void* user, void* buf, size_t max);
typedef int (*parcomp_write_fn)(void* user, const void* buf, size_t n);
int parcomp_compress_stream(parcomp_read_fn read, void* read_user, parcomp_write_fn write, void* write_user, const parcomp_options* options);
int parcomp_decompress_stream(parcomp_read_fn read, void* read_user, parcomp_write_fn write, void* write_user, const parcomp_options* options);

/* Incremental work (bzlib's BZ2_bzCompress in shape): push input, get the output ready by then
 * (often none), finish for the rest; the work runs on the library's threads meanwhile. The buffers
 * returned are the library's (parcomp_free them, also when empty). A stream freed before
 * parcomp_stream_finish abandons its work. */
typedef struct parcomp_stream parcomp_stream;
/* decompress: 0 compresses, 1 decompresses. NULL on an error (parcomp_last_error says which). */
parcomp_stream* parcomp_stream_new(int decompress, const parcomp_options* options);
int parcomp_stream_push(parcomp_stream* stream, const void* src, size_t src_size, void** dst, size_t* dst_size);
int parcomp_stream_finish(parcomp_stream* stream, void** dst, size_t* dst_size);
void parcomp_stream_free(parcomp_stream* stream);

/* Output pulled by the caller, from a file descriptor read to its end (not closed): the work runs
 * on the library's threads, and parcomp_reader_read takes the output as it comes (at most 64 MiB of
 * it waits), so memory stays bounded at any size. *got is 0 at the end. A reader freed before its
 * end abandons its work. */
typedef struct parcomp_reader parcomp_reader;
parcomp_reader* parcomp_reader_new(int in_fd, int decompress, const parcomp_options* options);
int parcomp_reader_read(parcomp_reader* reader, void* buf, size_t max, size_t* got);
void parcomp_reader_free(parcomp_reader* reader);

/* The last error of the calling thread, in words ("" after a success). */
const char* parcomp_last_error(void);
/* "0.3.0 (commit ...)". */
const char* parcomp_version(void);

#ifdef __cplusplus
}
#endif

#endif /* PARCOMP_H */
