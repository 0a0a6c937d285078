/* One core's float32 peak: 12 independent chains of 256-bit fused multiply-adds (AVX2 + FMA),
   enough to keep both FMA pipes busy through their latency. docs/performance.md quotes it:

       gcc -O3 -mavx2 -mfma bench/fma_peak.c -o /tmp/fma_peak && /tmp/fma_peak

   Run two at once to see whether the cores share their FMA units (hyper-threads would). */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

int main(void) {
    __m256 chains[12];
    const __m256 factor = _mm256_set1_ps(0.999999f), addend = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < 12; i++) chains[i] = _mm256_set1_ps((float)i);
    const long iterations = 200000000L;
    struct timespec start, end;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    for (long n = 0; n < iterations; n++)
        for (int i = 0; i < 12; i++) chains[i] = _mm256_fmadd_ps(chains[i], factor, addend);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &end);
    double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) * 1e-9;
    float sum = 0; /* use the results, so the loop is not optimised away */
    for (int i = 0; i < 12; i++) { float lanes[8]; _mm256_storeu_ps(lanes, chains[i]); sum += lanes[0]; }
    /* 12 FMAs of 8 lanes, 2 FLOPs each */
    printf("%.1f GFLOP/s float32 (one thread, %.2f s of CPU) [%g]\n",
           iterations * 12.0 * 16 / seconds / 1e9, seconds, sum);
    return 0;
}
