/* tests/fuzz/fuzz_mtx.h: the reader's fuzz contract, shared by the libFuzzer target and the
 * corpus replay (tests/fuzz/fuzz_replay.c). */
#ifndef SPX_TESTS_FUZZ_MTX_H
#define SPX_TESTS_FUZZ_MTX_H

#include <stddef.h>
#include <stdint.h>

#include "spx/spx.h"

/* Room for the reader's message or a broken-contract description. */
#define FUZZ_MSG_LEN 512

/* Reads data as a Matrix Market file (default options, then strict), each in its own
 * single-thread context with a small host budget, and checks the contract: a known status;
 * on failure no matrix and a non-empty message; on success a valid CSR with sorted unique
 * columns; a strict success is the default read's matrix, bit for bit; once the matrix is
 * freed the context accounts no host bytes, and its peak stayed within the budget. Then reads
 * it as a vector (spx_vec_read_mtx, its own context and budget): the same rules, and a vector
 * read succeeds only where the default matrix read gives an n x 1 matrix of the same values,
 * bit for bit (or ran out of its budget, as the matrix needs more memory). Returns
 * 0 when the contract held, with *status and msg the default read's status and message
 * ("" on success; the temporary file named "<input>"); else 1, msg saying what broke. */
int fuzz_mtx_one(const uint8_t *data, size_t size, spx_status *status, char *msg,
                 size_t msg_len);
/* libFuzzer's entry point: fuzz_mtx_one, aborting (a saved crash) when the contract broke. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
