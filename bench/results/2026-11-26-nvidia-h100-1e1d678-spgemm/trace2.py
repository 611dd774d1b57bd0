# adds host timers (synchronising, SPX_TRACE set) around the spx GPU SpGEMM plan's steps in a copy of the tree
import sys
p=sys.argv[1]+'/src/spgemm/spx/spx_gpu.cu'
s=open(p).read()
s=s.replace('#include <stdio.h>','#include <stdio.h>\n#include <stdlib.h>\nstatic double tr_t;\n#define TR(ctx,what) do { if (getenv("SPX_TRACE")) { cudaStreamSynchronize(spx_cuda_stream(ctx)); double t_ = spx_now(); fprintf(stderr, "  %-24s %8.1f us\\n", what, (t_ - tr_t) * 1e6); tr_t = spx_now(); } } while (0)',1)
def rep(a,b):
    global s
    assert s.count(a)==1, a
    s=s.replace(a,b)
rep('    s = alloc_temp(ctx, S);','    TR(ctx,"(analyse start)"); s = alloc_temp(ctx, S); TR(ctx,"alloc temp");')
rep('    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(S->d_stats, 0, sizeof *S->d_stats, spx_cuda_stream(ctx)));','    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(S->d_stats, 0, sizeof *S->d_stats, spx_cuda_stream(ctx))); TR(ctx,"memset stats");')
rep('        if ((s = launch_analyse_rows(ctx, S, analyse_lanes(S)))) goto done;','        TR(ctx,"memset colcnt"); if ((s = launch_analyse_rows(ctx, S, analyse_lanes(S)))) goto done; TR(ctx,"analyse rows");')
rep('        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_dense_cols_kernel");','        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_dense_cols_kernel"); TR(ctx,"long rows+dense cols");')
rep('    if ((s = launch_bin_stats(ctx, S, 0, S->d_prod, 0)) || (s = spx_cuda_d2h(ctx, &S->sym, S->d_stats, sizeof S->sym)))\n        goto done;','    if ((s = launch_bin_stats(ctx, S, 0, S->d_prod, 0))) goto done;\n    TR(ctx,"bin stats");\n    if ((s = spx_cuda_d2h(ctx, &S->sym, S->d_stats, sizeof S->sym))) goto done;\n    TR(ctx,"d2h stats");')
rep('    spx_status s = make_bins(ctx, S, 0, S->d_prod, 0, &S->sym, S->d_sym_rows, &sym);','    TR(ctx,"(symbolic start)"); spx_status s = make_bins(ctx, S, 0, S->d_prod, 0, &S->sym, S->d_sym_rows, &sym); TR(ctx,"make_bins sym");')
rep('    if ((s = run_bins<false, V>(ctx, S, L, S->d_crow, nullptr, nullptr))) return s;','    TR(ctx,"memset crow"); if ((s = run_bins<false, V>(ctx, S, L, S->d_crow, nullptr, nullptr))) return s; TR(ctx,"run_bins sym");')
rep('    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(S->d_scan, bytes, S->d_crow, items, spx_cuda_stream(ctx)));','    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(S->d_scan, bytes, S->d_crow, items, spx_cuda_stream(ctx))); TR(ctx,"scan");')
rep('    spx_status s = make_bins(ctx, S, 1, S->d_crow, 1, st, S->d_num_rows, &S->num);\n    if (!s) s = spx_cuda_sync(ctx);','    TR(ctx,"length stats"); spx_status s = make_bins(ctx, S, 1, S->d_crow, 1, st, S->d_num_rows, &S->num);\n    if (!s) s = spx_cuda_sync(ctx); TR(ctx,"make_bins num");')
open(p,'w').write(s)
print("patched", s.count('TR(ctx'))
