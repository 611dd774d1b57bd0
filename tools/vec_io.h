/* tools/vec_io.h: Matrix Market array vectors (m x 1, "matrix array real general") for
 * `spx solve`'s --rhs, --x0 and -o: a small self-contained reader and writer, kept in one file
 * pair so the library's own vector I/O can replace it. */
#ifndef SPX_TOOLS_VEC_IO_H
#define SPX_TOOLS_VEC_IO_H

#include <stdint.h>

/* Reads the array vector at path into out[0..want): the header must say "matrix array" with a
 * real or integer field and general symmetry, the size line want rows and 1 column, then
 * exactly want values. Prints one error line naming opt (e.g. "--rhs"), the file and, for a
 * wrong length, both lengths; returns CLI_ERROR then, CLI_OK otherwise. */
int vec_io_read(const char *opt, const char *path, int64_t want, double *out);
/* Writes x[0..n) as an array vector through a temporary file renamed into place (removed if
 * a signal kills the command); prints the error and returns CLI_ERROR on failure. */
int vec_io_write(const char *path, const double *x, int64_t n);

#endif
