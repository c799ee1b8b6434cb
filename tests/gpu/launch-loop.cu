// launch-loop.cu: N empty kernel launches, for CUPTI overhead per launch
// (tests/gpu/check.sh times it with and without `tensorscope-cli record`).
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cuda_runtime.h>

__global__ void empty_kernel (int *p) { if (p) *p = 1; }

int main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 100000;
  int *d = nullptr;
  cudaMalloc (&d, 4);
  empty_kernel<<<1, 32>>> (nullptr);
  cudaDeviceSynchronize ();
  auto t0 = std::chrono::steady_clock::now ();
  for (int i = 0; i < n; i++)
    empty_kernel<<<1, 32>>> (nullptr);
  cudaDeviceSynchronize ();
  auto t1 = std::chrono::steady_clock::now ();
  cudaFree (d);
  printf ("%.1f ns/launch\n", std::chrono::duration<double, std::nano> (t1 - t0).count () / n);
  return 0;
}
