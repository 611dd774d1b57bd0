/* src/dist/dist_cuda_aware.c: whether the MPI library takes device pointers (CUDA-aware MPI),
 * asked at run time of the library actually loaded: Open MPI's MPIX_Query_cuda_support (its
 * "cuda" extension, mpi-ext.h), MPICH's MPIX_GPU_query_support; any other MPI is taken as not
 * CUDA-aware. Debian's Open MPI has the query and answers no (it is built without CUDA). */
#include <stdio.h>

#include "dist/dist_internal.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

/* This process's MPI: 1 when it reports CUDA support, else 0 with the reason in why. */
static int local_cuda_aware(char *why, size_t len)
{
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    if (MPIX_Query_cuda_support()) return 1;
    snprintf(why, len, "Open MPI's MPIX_Query_cuda_support() says this library was built without CUDA");
#elif defined(MPIX_GPU_SUPPORT_CUDA)
    int ok = 0;
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &ok) == MPI_SUCCESS && ok) return 1;
    snprintf(why, len, "MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA) says this MPICH does not take CUDA memory");
#else
    snprintf(why, len, "this MPI library has no query for CUDA support (Open MPI's or MPICH's)");
#endif
    return 0;
}

int dist_mpi_cuda_aware(MPI_Comm comm, char *why, size_t len)
{
    int mine = local_cuda_aware(why, len), all = mine;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm); /* every rank's library must take them */
    if (mine && !all) snprintf(why, len, "another rank's MPI library does not report CUDA support");
    return all;
}
