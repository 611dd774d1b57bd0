// pin probe: what putting C in page-locked memory would cost on this host, against the ring.
#include <cuda_runtime.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
static double now(){timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static char* fresh(size_t b){void*p=mmap(NULL,b,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);madvise(p,b,MADV_HUGEPAGE);return (char*)p;}
static void par_memset(char*p,size_t b,int T){
#pragma omp parallel num_threads(T)
 {int t=omp_get_thread_num();size_t c=(b+T-1)/T,s=c*t;if(s<b){size_t e=s+c>b?b:s+c;memset(p+s,0,e-s);}}
}
static void par_memcpy(char*d,const char*s0,size_t b,int T){
#pragma omp parallel num_threads(T)
 {int t=omp_get_thread_num();size_t c=(b+T-1)/T,s=c*t;if(s<b){size_t e=s+c>b?b:s+c;memcpy(d+s,s0+s,e-s);}}
}
int main(){
 const size_t B=(size_t)4<<30; char*dev; cudaMalloc(&dev,B); cudaMemset(dev,1,B); cudaDeviceSynchronize();
 for(int r=0;r<2;r++){
  double t0=now(); char*h=0; cudaHostAlloc((void**)&h,B,cudaHostAllocDefault); double t1=now();
  cudaMemcpy(h,dev,B,cudaMemcpyDeviceToHost); double t2=now(); cudaFreeHost(h); double t3=now();
  printf("cudaHostAlloc 4GiB %.1f ms, D2H into it %.1f ms (%.1f GB/s), cudaFreeHost %.1f ms\n",(t1-t0)*1e3,(t2-t1)*1e3,B/(t2-t1)/1e9,(t3-t2)*1e3);
  h=fresh(B); t0=now(); cudaError_t e=cudaHostRegister(h,B,0); t1=now();
  cudaMemcpy(h,dev,B,cudaMemcpyDeviceToHost); t2=now(); cudaHostUnregister(h); t3=now(); munmap(h,B);
  printf("fresh THP-advised: cudaHostRegister %.1f ms (%s), D2H %.1f ms (%.1f GB/s), unregister %.1f ms\n",(t1-t0)*1e3,cudaGetErrorString(e),(t2-t1)*1e3,B/(t2-t1)/1e9,(t3-t2)*1e3);
  h=fresh(B); par_memset(h,B,16); t0=now(); e=cudaHostRegister(h,B,0); t1=now(); cudaHostUnregister(h); t2=now(); munmap(h,B);
  printf("touched THP: cudaHostRegister %.1f ms, unregister %.1f ms\n",(t1-t0)*1e3,(t2-t1)*1e3);
  for(int T: {8,16}){ h=fresh(B); t0=now(); par_memset(h,B,T); t1=now(); par_memset(h,B,T); t2=now(); munmap(h,B);
   printf("memset fresh THP %d threads %.1f ms (%.1f GB/s), again %.1f ms (%.1f GB/s)\n",T,(t1-t0)*1e3,B/(t1-t0)/1e9,(t2-t1)*1e3,B/(t2-t1)/1e9);}
  char*src=fresh(B); par_memset(src,B,16);
  for(int T: {4,8,16}){ h=fresh(B); t0=now(); par_memcpy(h,src,B,T); t1=now(); par_memcpy(h,src,B,T); t2=now(); munmap(h,B);
   printf("memcpy into fresh THP %d threads %.1f ms (%.1f GB/s), into touched %.1f ms (%.1f GB/s)\n",T,(t1-t0)*1e3,B/(t1-t0)/1e9,(t2-t1)*1e3,B/(t2-t1)/1e9);}
  munmap(src,B);
 }
 return 0;
}
