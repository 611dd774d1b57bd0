/* src/formats/ehyb/ehyb_ops.c: the ehyb format's entry in the registry: availability (METIS),
 * the plan's build (device sizes, partition, layout, each timed as a phase) and its stats. */
#include <string.h>

#include "cuda/gateway.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_tuning.h"
#include "partition/partition.h"
#include "spmv/format.h"

/* The algorithms a plan may name: "auto" (the default) is voronoi built on the device for a
 * CUDA plan (ehyb_cuda.cu's build_algos: a plan of ~100-300 SpMVs), metis for a plan built on
 * the host (the CPU, or --build host); then the partitioners. */
static const char *const ehyb_plan_algos[] = {"auto", "metis", "bfs", "grow", "voronoi", NULL};

/* The algorithm of that name for a host build (NULL, "auto": metis), or -1. */
static int algo_from_name(const char *name)
{
    if (!name || !strcmp(name, "auto")) return SPX_EHYB_METIS;
    for (int i = 0; spx_ehyb_algo_names[i]; i++)
        if (!strcmp(spx_ehyb_algo_names[i], name)) return i;
    return -1;
}

/* metis (and auto, and what NULL asks about) needs METIS; bfs, grow and voronoi run everywhere. */
static int ehyb_available(const char *algo, const char **why)
{
    if (algo_from_name(algo) != SPX_EHYB_METIS || spx_partition_have_metis()) return 1;
    *why = "METIS not found (install libmetis-dev)";
    return 0;
}

/* The device the layout is sized for: the plan's GPU when it runs on CUDA, else the CPU
 * default (ehyb_tuning.h). */
static spx_status ehyb_target(spx_ctx *ctx, const spx_plan_opts *o, spx_ehyb_target *t)
{
    t->sms = SPX_EHYB_CPU_DEFAULT_SMS;
    t->smem_per_block = SPX_EHYB_CPU_DEFAULT_SMEM;
    spx_backend b = SPX_BACKEND_CPU;
    spx_status s = spx_ctx_resolve_backend(ctx, o->backend, &b);
    if (s || b != SPX_BACKEND_CUDA) return s;
    spx_device_info info;
    if ((s = spx_cuda_query(ctx, &info))) return s;
    if (info.sm_count > 0) t->sms = info.sm_count;
    if (info.smem_per_block_optin > 0) t->smem_per_block = info.smem_per_block_optin;
    return SPX_OK;
}

static spx_status ehyb_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, const spx_plan_opts *o,
                             spx_phase_log *log, void **impl)
{
    const int algo = algo_from_name(o->algo);
    if (algo < 0) return spx_fail(ctx, SPX_ERR_ARG, "ehyb: unknown algorithm '%s'", o->algo);
    spx_ehyb_target tg;
    spx_status s = ehyb_target(ctx, o, &tg);
    if (s) return s;
    spx_ehyb_parts parts = {0};
    double t_graph = 0, t_part = 0;
    s = spx_ehyb_partition(ctx, A, (spx_ehyb_algo)algo, &tg, o->precision, &parts, &t_graph, &t_part);
    spx_phase_add(log, "graph", t_graph);
    spx_phase_add(log, "partition", t_part);
    if (s) return s;
    const double t0 = spx_now();
    spx_ehyb_fmt *F = NULL;
    s = spx_ehyb_fmt_build(ctx, A, &parts, o->precision, (spx_ehyb_algo)algo, o->order == SPX_ORDER_PLAN, &F);
    spx_phase_add(log, "reorder", spx_now() - t0);
    spx_ehyb_parts_free(ctx, &parts);
    if (!s) *impl = F;
    return s;
}

static spx_status ehyb_to_csr(spx_ctx *ctx, const void *impl, spx_csr **out)
{
    return spx_ehyb_fmt_to_csr(ctx, impl, out);
}

static spx_status ehyb_spmv_cpu(spx_ctx *ctx, const void *impl, const spx_spmv_args *a)
{
    return spx_ehyb_fmt_spmv_cpu(ctx, impl, a->precision, a->alpha, a->x, a->beta, a->y);
}

static void ehyb_destroy(spx_ctx *ctx, void *impl) { spx_ehyb_fmt_destroy(ctx, impl); }

static const char *ehyb_algo_name(const void *impl)
{
    return spx_ehyb_algo_names[((const spx_ehyb_fmt *)impl)->algo];
}

static const char *ehyb_cpu_kernel_name(const void *impl) { return "cpu_omp_parts"; }

static double ehyb_bytes(const void *impl) { return spx_ehyb_fmt_bytes(impl); }

/* K, P, parts, segment sizes, the ER fraction (nonzeros outside their row's part), lanes per
 * row and slices, how full the ELL and ER slots are, bytes per nonzero. */
void spx_ehyb_fmt_stats(const spx_ehyb_fmt *F, spx_stat_list *l)
{
    const double nnz = F->nnz > 0 ? (double)F->nnz : 1.0;
    spx_stat_text(l, "partitioner", F->split == SPX_EHYB_SPLIT_BLOCKS ? "blocks (fallback)"
                                                                      : spx_ehyb_algo_names[F->algo]);
    spx_stat_num(l, "K", F->K);
    spx_stat_num(l, "P", F->P);
    spx_stat_num(l, "parts", F->nparts);
    spx_stat_num(l, "blocks_per_sm", F->blocks_per_sm);
    spx_stat_num(l, "segment_cap", F->seg_cap);
    spx_stat_num(l, "segment_max", F->seg_max);
    spx_stat_num(l, "edge_cut", (double)F->edge_cut);
    spx_stat_num(l, "er_fraction", (double)F->out_nnz / nnz);
    spx_stat_num(l, "lanes_per_row", F->lanes);
    spx_stat_num(l, "slices", F->n_ell_slices);
    spx_stat_num(l, "ell_fill", F->ell_slots ? (double)F->ell_nnz / (double)F->ell_slots : 1.0);
    spx_stat_num(l, "ell_padding_slots", (double)(F->ell_slots - F->ell_nnz));
    spx_stat_num(l, "er_rows", F->n_er_rows);
    spx_stat_num(l, "er_fill", F->er_slots ? (double)F->er_nnz / (double)F->er_slots : 1.0);
    spx_stat_num(l, "er_long_rows", F->n_long);
    spx_stat_text(l, "vector_order", F->plan_order ? "plan" : "caller");
    spx_stat_num(l, "bytes_per_nnz", spx_ehyb_fmt_bytes(F) / nnz);
}

static void ehyb_stats(const void *impl, spx_stat_list *l) { spx_ehyb_fmt_stats(impl, l); }

/* The new -> original numbering x and y take in plan order, else NULL. */
static const int32_t *ehyb_permutation(const void *impl)
{
    const spx_ehyb_fmt *F = impl;
    return F->plan_order ? F->row_perm : NULL;
}

const spx_format spx_ehyb_format = {
    .layout = {
        .name = "ehyb",
        .summary = "explicit-caching hybrid: METIS parts, x segments in shared memory, 16-bit sliced ELL + ER (EHYB)",
        .algos = ehyb_plan_algos,
        .kernel_prefix = "ehyb_",
        .available = ehyb_available,
        .build = ehyb_build,
        .to_csr = ehyb_to_csr,
        .destroy = ehyb_destroy,
        .algo_name = ehyb_algo_name,
        .bytes_per_spmv = ehyb_bytes,
        .stats = ehyb_stats,
        .permutation = ehyb_permutation,
    },
    .cpu = {.spmv = ehyb_spmv_cpu, .spmv_kernel = ehyb_cpu_kernel_name},
    .cuda = spx_ehyb_cuda,
};

