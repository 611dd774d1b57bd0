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
    q->lanes_taking = 0;
    q->cpu_taking = 1;
    q->seen_s[0] = q->seen_s[1] = 0;
    q->seen_work[0] = q->seen_work[1] = q->trust_work = 0;
    return pthread_mutex_init(&q->lock, NULL);
}

void spx_ooc_queue_costs(spx_ooc_queue *q, const int64_t *work, double gpu_cost, double cpu_cost, int lanes)
{
    q->work = gpu_cost > 0 && cpu_cost > 0 ? work : NULL;
    q->gpu_cost = gpu_cost, q->cpu_cost = cpu_cost;
    q->lanes_taking = lanes;
    q->left = 0;
    for (int at = q->lo; q->work && at < q->hi; at++) q->left += work[q->order[at]];
    q->trust_work = q->hi > q->lo ? q->left / (2 * (int64_t)(q->hi - q->lo)) : 0;
}

/* A side's seconds per product (gpu: one lane's): what its finished panels took, once they
 * hold half a mean panel's products, else the sample's (lock held). */
static double side_cost(const spx_ooc_queue *q, int gpu)
{
    const int64_t w = q->seen_work[gpu];
    if (w > 0 && w >= q->trust_work && q->seen_s[gpu] > 0) return q->seen_s[gpu] / (double)w;
    return gpu ? q->gpu_cost : q->cpu_cost;
}

/* Whether a GPU lane would finish the front panel no sooner than the CPU side finished all
 * that is left, while the CPU side still takes (lock held). */
static int gpu_too_slow(const spx_ooc_queue *q)
{
    return q->work && q->cpu_taking &&
           (double)q->work[q->order[q->lo]] * side_cost(q, 1) >= (double)q->left * side_cost(q, 0);
}

/* Whether the CPU side would finish the back panel later than the lanes still taking finished
 * all that is left, while one still takes (lock held; a tie takes the panel). */
static int cpu_too_slow(const spx_ooc_queue *q)
{
    if (!q->work || q->lanes_taking <= 0) return 0;
    const double lanes_left = (double)q->left * side_cost(q, 1) / q->lanes_taking;
    return (double)q->work[q->order[q->hi - 1]] * side_cost(q, 0) > lanes_left;
}

void spx_ooc_queue_destroy(spx_ooc_queue *q) { pthread_mutex_destroy(&q->lock); }

int spx_ooc_queue_take(spx_ooc_queue *q, int gpu, int *stolen)
{
    int panel = -1;
    pthread_mutex_lock(&q->lock);
    if (!q->abort && q->lo < q->hi && !(gpu ? gpu_too_slow(q) : cpu_too_slow(q))) {
        const int at = gpu ? q->lo++ : --q->hi;
        *stolen = gpu ? at >= q->split : at < q->split;
        panel = q->order[at];
        if (q->work) q->left -= q->work[panel];
    }
    if (panel < 0 && gpu && q->lanes_taking > 0) q->lanes_taking--;
    if (panel < 0 && !gpu) q->cpu_taking = 0;
    pthread_mutex_unlock(&q->lock);
    return panel;
}

void spx_ooc_queue_finish(spx_ooc_queue *q, int panel, int gpu, double seconds)
{
    const int side = gpu != 0;
    pthread_mutex_lock(&q->lock);
    q->done[q->n_done++] = panel;
    if (q->work) q->seen_s[side] += seconds, q->seen_work[side] += q->work[panel];
    pthread_mutex_unlock(&q->lock);
}

void spx_ooc_queue_abort(spx_ooc_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->abort = 1;
    pthread_mutex_unlock(&q->lock);
}
