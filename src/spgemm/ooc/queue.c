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
    return pthread_mutex_init(&q->lock, NULL);
}

void spx_ooc_queue_destroy(spx_ooc_queue *q) { pthread_mutex_destroy(&q->lock); }

int spx_ooc_queue_take(spx_ooc_queue *q, int gpu, int *stolen)
{
    int panel = -1;
    pthread_mutex_lock(&q->lock);
    if (!q->abort && q->lo < q->hi) {
        const int at = gpu ? q->lo++ : --q->hi;
        *stolen = gpu ? at >= q->split : at < q->split;
        panel = q->order[at];
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
