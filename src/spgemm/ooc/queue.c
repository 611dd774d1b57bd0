/* src/spgemm/ooc/queue.c: the out-of-core run's two-ended panel queue (queue.h). */
#include "spgemm/ooc/queue.h"

int spx_ooc_queue_init(spx_ooc_queue *q, const int *order, int n, int split, int *done)
{
    q->order = order;
    q->lo = 0;
    q->hi = n;
    q->split = split;
    q->abort = 0;
    q->done = done;
    q->n_done = 0;
    q->work = NULL;
    q->left = 0;
    q->gpu_cost = q->cpu_cost = 0;
    return pthread_mutex_init(&q->lock, NULL);
}

void spx_ooc_queue_costs(spx_ooc_queue *q, const int64_t *work, double gpu_cost, double cpu_cost)
{
    q->work = gpu_cost > 0 && cpu_cost > 0 ? work : NULL;
    q->gpu_cost = gpu_cost, q->cpu_cost = cpu_cost;
    q->left = 0;
    for (int at = q->lo; q->work && at < q->hi; at++) q->left += work[q->order[at]];
}

/* Whether the GPU side would finish the front panel after the CPU side finished all that is
 * left (lock held). */
static int gpu_too_slow(const spx_ooc_queue *q)
{
    return q->work && (double)q->work[q->order[q->lo]] * q->gpu_cost >= (double)q->left * q->cpu_cost;
}

void spx_ooc_queue_destroy(spx_ooc_queue *q) { pthread_mutex_destroy(&q->lock); }

int spx_ooc_queue_take(spx_ooc_queue *q, int gpu, int *stolen)
{
    int panel = -1;
    pthread_mutex_lock(&q->lock);
    if (!q->abort && q->lo < q->hi && !(gpu && gpu_too_slow(q))) {
        const int at = gpu ? q->lo++ : --q->hi;
        *stolen = gpu ? at >= q->split : at < q->split;
        panel = q->order[at];
        if (q->work) q->left -= q->work[panel];
    }
    pthread_mutex_unlock(&q->lock);
    return panel;
}

void spx_ooc_queue_finish(spx_ooc_queue *q, int panel)
{
    pthread_mutex_lock(&q->lock);
    q->done[q->n_done++] = panel;
    pthread_mutex_unlock(&q->lock);
}

void spx_ooc_queue_abort(spx_ooc_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->abort = 1;
    pthread_mutex_unlock(&q->lock);
}
