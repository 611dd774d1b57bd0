/* src/spgemm/ooc/queue.h: the panels of one out-of-core run as a two-ended queue over their
 * affinity order: the GPU side takes from the front (the sparsest panels), the CPU side from
 * the back; the planned split sits between, and whichever side runs out of its own panels goes
 * on taking the other's from the middle (work stealing), so a wrong K costs little. With the
 * two sides' seconds per product (the plan's sample until a side has finished half a mean
 * panel's products, then what its finished panels took: a panel of a few rows costs its fixed
 * costs, not its products), a side stops taking when its next panel would end no sooner than
 * the other side's whole remainder (panels in flight not counted): a GPU lane when one panel
 * of its own would outlast the CPU side's remainder, the CPU side when its next panel would
 * outlast the remainder on the lanes still taking; on a tie the lane leaves the panel and the
 * CPU side takes it. A side refuses only while the other still takes, so every panel is
 * computed unless the run aborts. Why both sides check: docs/spgemm.md, "Stealing". */
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
    double gpu_cost, cpu_cost; /* the sample's seconds per product: a GPU lane's, the CPU side's */
    int lanes_taking;          /* GPU lanes not yet given -1 (kept only with costs set) */
    int cpu_taking;            /* the CPU side has not yet been given -1 */
    double seen_s[2];          /* [gpu]: seconds of the panels the side finished (lanes summed) */
    int64_t seen_work[2];      /* [gpu]: their products */
    int64_t trust_work;        /* the products a side must have finished for its own cost to count */
} spx_ooc_queue;

/* Starts a run over order[0..n) with the GPU's planned positions [0, split); done has room
 * for n panels. Returns nonzero when the lock cannot be made. */
int spx_ooc_queue_init(spx_ooc_queue *q, const int *order, int n, int split, int *done);
/* The panels' products (by panel index), the sides' seconds per product on the plan's sample
 * (either <= 0: none known, no cost checks) and the GPU lanes that will take panels: exactly
 * those that will call spx_ooc_queue_take until it gives -1 (or abort the run), else the CPU
 * side may leave a panel to no one. Called before any take (it does not lock). */
void spx_ooc_queue_costs(spx_ooc_queue *q, const int64_t *work, double gpu_cost, double cpu_cost, int lanes);
void spx_ooc_queue_destroy(spx_ooc_queue *q);
/* The next panel for a side (gpu nonzero: from the front), or -1 when none is left, the run
 * aborted or the cost check refuses; *stolen = whether it lies past the planned split. A side
 * given -1 has stopped: it takes nothing more. */
int spx_ooc_queue_take(spx_ooc_queue *q, int gpu, int *stolen);
/* Records panel as finished by a side (gpu nonzero: a GPU lane) in `seconds` of its wall time. */
void spx_ooc_queue_finish(spx_ooc_queue *q, int panel, int gpu, double seconds);
/* Stops handing out panels (a side failed). */
void spx_ooc_queue_abort(spx_ooc_queue *q);

#ifdef __cplusplus
}
#endif
#endif
