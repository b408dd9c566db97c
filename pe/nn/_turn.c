/* RoPE's rotation of concatenated pairs (the Llama layout) in one pass over memory.
 *
 * pe.nn._cpu_kernel compiles this file with the system's C compiler the first time a
 * large float32 input on the CPU needs it. Each row of x is read once and each row of
 * out written once:
 *
 *     out[j]        = x[j] cos[j] + x[j + half] (-sin[j])          j < half
 *     out[j + half] = x[j + half] cos[j + half] + x[j] sin[j]
 *     out[j]        = x[j] cos[j]  (cos[j] = 1)                  j >= 2 half
 *
 * rounded as torch's operations round them where the CPU fuses multiply and add:
 * the product x cos rounded, then the second product added to it in one fused step
 * (torch's addcmul). Without fused multiply-add, both products are rounded, as
 * torch's code rounds them there.
 *
 * The work is split into parts, one per thread: each part is some sequence rows of
 * every leading row (every head), or, where the sequence is short, some leading rows.
 * The parts run on the threads of torch's own OpenMP team where pe finds that
 * runtime (pe_turn_in_team: its threads are awake after torch's last operation and
 * take the parts at once), else on threads of Python's (pe_turn_part, one call each).
 */
#include <math.h>

#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)
#define PE_ADD_PRODUCT(sum, a, b) fmaf((a), (b), (sum))
#else
#define PE_ADD_PRODUCT(sum, a, b) ((sum) + (a) * (b))
#endif

/* Sequence rows turned in every leading row before the next: a block's rows of the
 * tables are read from memory once, not once per head. */
#define PE_BLOCK 16

/* x is a contiguous (lead, seq, width) array: row (h, p) starts at x + (h seq + p)
 * width and is turned by row p of the tables. Row p of cos starts at cos + p cos_row
 * and holds width values; rows of minus_sin and sin start at p sin_row and hold half.
 * thread_num and num_threads are the OpenMP runtime's (pe_turn_in_team only). */
struct pe_rope_job {
    const float *x;
    float *out;
    const float *cos;
    const float *minus_sin;
    const float *sin;
    long lead, seq, width, half, cos_row, sin_row;
    long parts, by_position;
    int (*thread_num)(void);
    int (*num_threads)(void);
};

// --8<-- [start:loop]
static void pe_turn_rows(const float *restrict x, float *restrict out,
                         const float *restrict cos, const float *restrict minus_sin,
                         const float *restrict sin, long h_begin, long h_end, long p_begin,
                         long p_end, long seq, long width, long half, long cos_row,
                         long sin_row) {
    for (long block = p_begin; block < p_end; block += PE_BLOCK) {
        const long stop = block + PE_BLOCK < p_end ? block + PE_BLOCK : p_end;
        for (long h = h_begin; h < h_end; ++h) {
            for (long p = block; p < stop; ++p) {
                const float *restrict in = x + (h * seq + p) * width;
                float *restrict turned = out + (h * seq + p) * width;
                const float *restrict c = cos + p * cos_row;
                const float *restrict ms = minus_sin + p * sin_row;
                const float *restrict s = sin + p * sin_row;
                for (long j = 0; j < half; ++j) {
                    const float first = in[j], second = in[j + half];
                    turned[j] = PE_ADD_PRODUCT(first * c[j], second, ms[j]);
                    turned[j + half] = PE_ADD_PRODUCT(second * c[j + half], first, s[j]);
                }
                for (long j = 2 * half; j < width; ++j) {
                    turned[j] = in[j] * c[j];
                }
            }
        }
    }
}
// --8<-- [end:loop]

/* Turn part `part` of job->parts. */
void pe_turn_part(const struct pe_rope_job *job, long part) {
    const long total = job->by_position ? job->seq : job->lead;
    const long step = (total + job->parts - 1) / job->parts;
    const long begin = part * step;
    const long end = begin + step < total ? begin + step : total;
    if (begin >= end) {
        return;
    }
    pe_turn_rows(job->x, job->out, job->cos, job->minus_sin, job->sin,
                 job->by_position ? 0 : begin, job->by_position ? job->lead : end,
                 job->by_position ? begin : 0, job->by_position ? end : job->seq, job->seq,
                 job->width, job->half, job->cos_row, job->sin_row);
}

static void pe_team_member(void *data) {
    const struct pe_rope_job *job = data;
    /* A team smaller than asked for still turns every part. */
    for (long part = job->thread_num(); part < job->parts; part += job->num_threads()) {
        pe_turn_part(job, part);
    }
}

/* Turn every part on a team of the OpenMP runtime whose GOMP_parallel is given (GCC's
 * entry point, which LLVM's and Intel's runtimes also provide). */
void pe_turn_in_team(const struct pe_rope_job *job,
                     void (*parallel)(void (*)(void *), void *, unsigned, unsigned)) {
    parallel(pe_team_member, (void *)job, (unsigned)job->parts, 0);
}
