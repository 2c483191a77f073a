/* Compresses a buffer to .bz2 and back through parcomp's C API, and checks the round trip. */
#include <parcomp/parcomp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  size_t size = 0;
  char* data = malloc(4000000);
  for (int i = 0; i < 100000; ++i) size += (size_t)sprintf(data + size, "line %d of a log file\n", i % 977);
  parcomp_options options;
  parcomp_options_init(&options); /* .bz2 at level 9, every CPU core and GPU */
  void *packed = NULL, *back = NULL;
  size_t packed_size = 0, back_size = 0;
  if (parcomp_compress_buffer(data, size, &packed, &packed_size, &options) != PARCOMP_OK ||
      parcomp_decompress_buffer(packed, packed_size, &back, &back_size, NULL) != PARCOMP_OK) {
    fprintf(stderr, "parcomp: %s\n", parcomp_last_error());
    return 1;
  }
  printf("parcomp %s: %zu bytes -> %zu bytes of .bz2 -> %zu bytes\n", parcomp_version(), size, packed_size, back_size);
  const int same = back_size == size && memcmp(back, data, size) == 0;
  void* none = NULL;
  size_t none_size = 0;
  const int damaged = parcomp_decompress_buffer("BZh9\1\2\3", 7, &none, &none_size, NULL);
  printf("a damaged stream: error %d, %s\n", damaged, parcomp_last_error());
  parcomp_free(packed);
  parcomp_free(back);
  parcomp_free(none);
  free(data);
  return same && damaged == PARCOMP_ERROR_DATA ? 0 : 1;
}
