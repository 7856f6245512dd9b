/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_base.h - types, fixed point and arithmetic shared by every policy file.
 *
 * The policy core is compiled twice: by gcc for host tests and the simulator,
 * and by clang --target=bpf for the scheduler. So it uses no kernel types, no
 * floats, no globals and no library calls; loops are bounded by constants and
 * every division goes through pol_div(), which defines x/0.
 */
#ifndef __POL_BASE_H
#define __POL_BASE_H

#if defined(__bpf__)
# ifndef __VMLINUX_H__
/* BPF object without vmlinux.h (the differential test programs). */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed int s32;
typedef signed long long s64;
#  ifndef __cplusplus
typedef _Bool bool;
#   define true 1
#   define false 0
#  endif
# endif
#else
# include <stdbool.h>
# include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
#endif

#ifndef __always_inline
# define __always_inline inline __attribute__((__always_inline__))
#endif
#define POL_FN static __always_inline

/* Fixed point: 1.0 == POL_SCALE. */
#define POL_SHIFT		10
#define POL_SCALE		(1ULL << POL_SHIFT)
/* Percent to scale: p2s(50) == 512. */
#define pol_p2s(pct)		(((u64)(pct) << POL_SHIFT) / 100)

#define POL_NSEC_PER_USEC	1000ULL
#define POL_NSEC_PER_MSEC	1000000ULL
#define POL_NSEC_PER_SEC	1000000000ULL
#define POL_U64_MAX		(~0ULL)

/*
 * Bounded loop over i = 0 .. min(n, max) - 1; i must be an int and max a
 * constant. Under BPF it is an open-coded iterator: the verifier checks the
 * body once with i in [0, max) instead of walking every iteration with a
 * constant i, whose states multiply with each branch in the body.
 * n is compared as unsigned 64-bit: an (int) cast turned a u32 n >= 2^31
 * negative and skipped the loop (found by tests/fuzz, pick_stealee_n_2p31).
 */
#if defined(__bpf__) && defined(bpf_for)
#define pol_for(i, n, max)	bpf_for(i, 0, max) if ((unsigned long long)(i) >= (unsigned long long)(n)) break; else
#else
#define pol_for(i, n, max)	for ((i) = 0; (unsigned long long)(i) < (unsigned long long)(n) && (i) < (max); (i)++)
#endif

POL_FN u64 pol_min(u64 a, u64 b) { return a < b ? a : b; }
POL_FN u64 pol_absdiff(u64 a, u64 b) { return a > b ? a - b : b - a; }
POL_FN u64 pol_max(u64 a, u64 b) { return a > b ? a : b; }
POL_FN u64 pol_clamp(u64 v, u64 lo, u64 hi)
{
	/* lo wins over hi when they are inverted: callers validate, this stays total. */
	if (v > hi)
		v = hi;
	if (v < lo)
		v = lo;
	return v;
}

/* a / b, and a when b == 0: every variable divisor goes through here. */
POL_FN u64 pol_div(u64 a, u64 b)
{
	return b ? a / b : a;
}

/* a - b, or 0 when b > a (time differences that must not wrap). */
POL_FN u64 pol_sub_sat(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

/* a + b, saturating at U64_MAX. */
POL_FN u64 pol_add_sat(u64 a, u64 b)
{
	u64 s = a + b;

	return s < a ? POL_U64_MAX : s;
}

/*
 * a * b, saturating at U64_MAX. Done in 32-bit halves: the obvious
 * "b > U64_MAX / a" test is turned by clang into a 128-bit multiply, which
 * the BPF backend cannot emit.
 */
POL_FN u64 pol_mul_sat(u64 a, u64 b)
{
	u64 ah = a >> 32, al = a & 0xffffffffULL;
	u64 bh = b >> 32, bl = b & 0xffffffffULL;
	u64 cross, lo, r;

	if (ah && bh)
		return POL_U64_MAX;
	cross = ah * bl + al * bh;	/* one term is 0: no overflow here */
	if (cross >> 32)
		return POL_U64_MAX;
	lo = al * bl;
	r = lo + (cross << 32);
	return r < lo ? POL_U64_MAX : r;
}

/*
 * Bit length of v: floor(log2(v)) + 1 for v >= 1, and 1 for v == 0 (so the
 * criticality factors never multiply by zero). log2x(1) = 1, log2x(2..3) = 2.
 */
POL_FN u32 pol_log2x(u64 v)
{
	u64 s, n = 0;

	/*
	 * Branch-free binary search: each step tests whether the upper half
	 * is non-zero with an add-and-shift instead of a comparison. BPF has
	 * no conditional set, so comparisons become branches, and a chain of
	 * branches multiplies the states the verifier must walk.
	 */
	s = (((v >> 32) + 0xffffffffULL) >> 32) << 5;
	v >>= s;
	n += s;
	s = (((v >> 16) + 0xffffULL) >> 16) << 4;
	v >>= s;
	n += s;
	s = (((v >> 8) + 0xffULL) >> 8) << 3;
	v >>= s;
	n += s;
	s = (((v >> 4) + 0xfULL) >> 4) << 2;
	v >>= s;
	n += s;
	s = (((v >> 2) + 0x3ULL) >> 2) << 1;
	v >>= s;
	n += s;
	n += v >> 1;
	return (u32)n + 1;
}

/*
 * Exponentially weighted moving average, new sample weight 1/8.
 * Small values (below 8) blend 50/50 so that an average can climb out of and
 * fall into zero, which a 1/8 step with integer truncation never would.
 * The 1/8 step rounds away from the old value: it always moves by at least
 * 1 towards a different sample, so the average reaches it. Truncating each
 * term instead (old - old/8 + new/8) froze an average of queued tasks
 * anywhere in 8..15 while 8 tasks waited, and the slice target with it
 * (2.7 ms instead of 5 ms on 4 CPUs).
 */
POL_FN u64 pol_ewma(u64 old, u64 new)
{
	u64 d;

	if (old < 8 || new < 8) {
		if (old == 1 && new == 0)
			return 0;
		return old - (old >> 1) + (new >> 1);
	}
	if (new >= old) {
		d = new - old;
		return old + (d >> 3) + ((d & 7) != 0);
	}
	d = old - new;
	return old - (d >> 3) - ((d & 7) != 0);
}

/*
 * Asymmetric average for utilisation: rises fast (new weight 3/4), decays
 * slowly (new weight 1/8), so a burst is seen at once and a lull is not
 * trusted until it lasts.
 */
POL_FN u64 pol_ewma_asym(u64 old, u64 new)
{
	if (new >= old) {
		if (old < 4 || new < 4)
			return old - (old >> 1) + (new >> 1);
		return new - (new >> 2) + (old >> 2);
	}
	return pol_ewma(old, new);
}

/* Events per second for an interval, saturating at freq_max for tiny intervals. */
POL_FN u64 pol_interval_to_freq(u64 interval_ns, u64 freq_max)
{
	if (interval_ns == 0)
		return freq_max;
	return pol_min(POL_NSEC_PER_SEC / interval_ns, freq_max);
}

#endif /* __POL_BASE_H */
