/* src/spgemm/ooc/queue.h: the panels of one out-of-core run as a two-ended queue over their
 * affinity order: the GPU side takes from the front (the sparsest panels), the CPU side from
 * the back; the planned split sits between, and whichever side runs out of its own panels goes
 * on taking the other's from the middle (work stealing), so a wrong K costs little. With the
 * two sides' measured seconds per product, the GPU side takes no panel that it would finish
 * after the CPU side finished every panel left: a GPU much slower than the cores (K << 1)
 * never becomes the run's straggler. The CPU side always takes: the run ends with it. */
#ifndef SPX_SPGEMM_OOC_QUEUE_H
#define SPX_SPGEMM_OOC_QUEUE_H

#include <pthread.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_ooc_queue {
    pthread_mutex_t lock;
    const int *order; /* panel indices, the GPU's end first */
    int lo, hi;       /* positions [lo, hi) are left */
    int split;        /* positions [0, split) are planned for the GPU, the rest for the CPU */
    int abort;        /* a side failed: nothing more is handed out */
    int *done;        /* panels in the order they finished */
    int n_done;
    const int64_t *work; /* by panel: its products (NULL: no costs, every take allowed) */
    int64_t left;        /* the products of positions [lo, hi) */
    double gpu_cost, cpu_cost; /* seconds per product of one GPU panel, of the CPU side */
} spx_ooc_queue;

/* Starts a run over order[0..n) with the GPU's planned positions [0, split); done has room
 * for n panels. Returns nonzero when the lock cannot be made. */
int spx_ooc_queue_init(spx_ooc_queue *q, const int *order, int n, int split, int *done);
/* The panels' products (by panel index) and the sides' seconds per product (either <= 0:
 * none known), for the GPU side's cost check. */
void spx_ooc_queue_costs(spx_ooc_queue *q, const int64_t *work, double gpu_cost, double cpu_cost);
void spx_ooc_queue_destroy(spx_ooc_queue *q);
/* The next panel for a side (gpu nonzero: from the front), or -1 when none is left or the run
 * aborted; *stolen = whether it lies past the planned split. */
int spx_ooc_queue_take(spx_ooc_queue *q, int gpu, int *stolen);
/* Records panel as finished. */
void spx_ooc_queue_finish(spx_ooc_queue *q, int panel);
/* Stops handing out panels (a side failed). */
void spx_ooc_queue_abort(spx_ooc_queue *q);

#ifdef __cplusplus
}
#endif
#endif
