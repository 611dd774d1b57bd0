# adds host timers (synchronising) around the spx GPU SpGEMM plan's steps in a copy of the tree
import sys,re
p=sys.argv[1]+'/src/spgemm/spx/spx_gpu.cu'
s=open(p).read()
s=s.replace('#include <stdio.h>','#include <stdio.h>\n#include <stdlib.h>\nstatic double tr_t;\n#define TR(ctx,what) do { if (getenv("SPX_TRACE")) { cudaStreamSynchronize(spx_cuda_stream(ctx)); double t_ = spx_now(); fprintf(stderr, "  %-28s %8.1f us\\n", what, (t_ - tr_t) * 1e6); tr_t = spx_now(); } } while (0)',1)
def after(anchor, label):
    global s
    i=s.index(anchor)+len(anchor)
    s=s[:i]+' TR(ctx,"'+label+'");'+s[i:]
after('    spx_status s = spx_cuda_malloc(ctx, (void **)&S->d_prod, (size_t)S->m * sizeof *S->d_prod);','start+malloc prod')
after('    if (!s) s = spx_cuda_malloc(ctx, (void **)&S->d_range, (size_t)S->m * sizeof *S->d_range);','malloc range')
after('    if (!s) s = spx_cuda_malloc(ctx, (void **)&d_colcnt, (size_t)S->k * sizeof *d_colcnt);','malloc colcnt')
after('    if (S->k) SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(d_colcnt, 0, (size_t)S->k * sizeof *d_colcnt, spx_cuda_stream(ctx)));','memsets')
after('        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_products_kernel");','products')
after('        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_range_kernel");','range')
after('        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_dense_cols_kernel");','dense cols')
s=s.replace('    if ((s = launch_bin_stats(ctx, S, 0, S->d_prod, 0)) || (s = spx_cuda_d2h(ctx, &S->sym, S->d_stats, sizeof S->sym)))\n        goto done;',
 '    if ((s = launch_bin_stats(ctx, S, 0, S->d_prod, 0))) goto done; TR(ctx,"bin stats");\n    if ((s = spx_cuda_d2h(ctx, &S->sym, S->d_stats, sizeof S->sym))) goto done; TR(ctx,"d2h stats");')
s=s.replace('    spx_cuda_free(ctx, d_colcnt);\n    return s;\n}','    spx_cuda_free(ctx, d_colcnt); TR(ctx,"free colcnt");\n    return s;\n}',1)
# symbolic steps
s=s.replace('    spx_status s = make_bins(ctx, S, 0, S->d_prod, 0, &S->sym, &sym);','    TR(ctx,"(symbolic start)"); spx_status s = make_bins(ctx, S, 0, S->d_prod, 0, &S->sym, &sym); TR(ctx,"make_bins sym");')
s=s.replace('    if ((s = run_bins<false, V>(ctx, S, L, S->d_crow, nullptr, nullptr))) return s;','    TR(ctx,"memset crow"); if ((s = run_bins<false, V>(ctx, S, L, S->d_crow, nullptr, nullptr))) return s; TR(ctx,"run_bins sym");')
s=s.replace('    s = spx_cuda_d2h(ctx, &S->nnz_c, S->d_crow + S->m, sizeof S->nnz_c); /* synchronises: tmp is free to go */','    TR(ctx,"scan"); s = spx_cuda_d2h(ctx, &S->nnz_c, S->d_crow + S->m, sizeof S->nnz_c); TR(ctx,"d2h nnz");')
s=s.replace('    spx_status s = length_stats(ctx, S, &st);\n    if (!s) s = make_bins(ctx, S, 1, S->d_crow, 1, &st, &S->num);','    TR(ctx,"(numeric bins)"); spx_status s = length_stats(ctx, S, &st); TR(ctx,"length stats");\n    if (!s) s = make_bins(ctx, S, 1, S->d_crow, 1, &st, &S->num); TR(ctx,"make_bins num");')
open(p,'w').write(s)
print("patched", s.count('TR(ctx'))
