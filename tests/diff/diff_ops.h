/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diff_ops.h - one dispatcher over the policy core, compiled twice: into
 * the host test and into a BPF syscall program. The differential test runs
 * both on the same inputs and compares the whole context afterwards, so the
 * host build and the BPF build of src/policy/ are proven to compute the same.
 */
#ifndef __DIFF_OPS_H
#define __DIFF_OPS_H

#include "policy/pol.h"

enum diff_op {
	OP_LOG2X, OP_MUL_SAT, OP_EWMA, OP_EWMA_ASYM, OP_FREQ, OP_LAT_CRI, OP_WAKE,
	OP_TASK_CYCLE, OP_GREEDY, OP_DEADLINE, OP_CLOCK, OP_SLICE_TARGET, OP_THR,
	OP_SYS_UPDATE, OP_TASK_SLICE, OP_STEALEE, OP_INVR, OP_NORM, OP_CTX_BOOST,
	OP_TASK_INIT, OP_PREEMPT, OP_FUTEX, OP_TURBULENCE, OP_WARMTH, OP_PLAN, OP_POWER,
	OP_PERF, OP_CBW_QUOTA, OP_CBW_PERIOD,
	NR_DIFF_OPS
};

#define DIFF_NR_DOMS POL_MAX_DOMAINS /* the policy may read that many */

struct diff_ctx {
	u32 op;
	u32 pad;
	u64 in[8];
	u64 out[8];
	struct pol_task_stat t1, t2;
	struct pol_sys sys;
	struct pol_sys_sample smp;
	struct pol_cfg cfg;
	struct pol_domain doms[DIFF_NR_DOMS];
	struct pol_dom_plan plans[DIFF_NR_DOMS];
	struct pol_bal_sum bal_sum;
	struct pol_order_caps caps;	/* capacities along a CPU order (pol_cc_nr_active) */
	u64 bounds[POL_PCO_MAX];	/* PCO capacity bounds */
	struct pol_cbw cbw;
	struct pol_cbw_chain ch1, ch2;
};

POL_FN void diff_exec(struct diff_ctx *c)
{
	u64 *in = c->in, *out = c->out;

	switch (c->op) {
	case OP_LOG2X:
		out[0] = pol_log2x(in[0]);
		break;
	case OP_MUL_SAT:
		out[0] = pol_mul_sat(in[0], in[1]);
		out[1] = pol_add_sat(in[0], in[1]);
		out[2] = pol_sub_sat(in[0], in[1]);
		out[3] = pol_div(in[0], in[1]);
		out[4] = pol_clamp(in[0], in[1], in[2]);
		break;
	case OP_EWMA:
		out[0] = pol_ewma(in[0], in[1]);
		break;
	case OP_EWMA_ASYM:
		out[0] = pol_ewma_asym(in[0], in[1]);
		break;
	case OP_FREQ:
		out[0] = pol_interval_to_freq(in[0], in[1]);
		break;
	case OP_LAT_CRI:
		out[0] = pol_lat_cri_raw(&c->t1, in[0], (u32)in[1]);
		out[1] = pol_lat_cri(&c->t1, in[0], (u32)in[1]);
		break;
	case OP_WAKE:
		out[0] = pol_task_on_wake(&c->t1, &c->t2, in[0]);
		break;
	case OP_TASK_CYCLE:
		pol_task_on_runnable(&c->t1);
		pol_task_on_running(&c->t1, in[0]);
		pol_task_account(&c->t1, in[1], in[2], in[3]);
		pol_task_on_stopping(&c->t1);
		pol_task_on_quiescent(&c->t1, in[4], in[5] & 1);
		break;
	case OP_GREEDY: {
		struct pol_greed g = pol_greedy_penalty(&c->t1, in[0], in[1]);

		out[0] = g.penalty;
		out[1] = g.greedy;
		break;
	}
	case OP_DEADLINE:
		out[0] = pol_deadline_delta(in[0], in[1], (u32)in[2], in[3]);
		out[1] = pol_compete_window(in[4], in[5]);
		out[2] = pol_vdeadline(in[6], out[0], out[1]);
		out[3] = pol_weight_scale(out[0], in[7]);
		out[4] = pol_deadline_cap(out[3], in[7] >> 32, in[7] & 1);
		out[5] = pol_local_pick_ok(in[6], in[0], pol_local_span(in[7] >> 32));
		out[6] = pol_local_pick_ok(in[6], in[6] + (in[1] & 0xfffff), pol_local_span(in[2] & 0xfff));
		break;
	case OP_CLOCK:
		out[0] = pol_clock_advance(in[0], in[1], in[2]);
		out[1] = pol_clock_service(in[3], in[4], in[5]);
		out[2] = pol_real_stop(in[0], in[6] & 1, in[1], in[2]);
		out[3] = pol_real_stop(in[0], true, in[0] - (in[3] & 0xfffffff), in[4] & 0xffffff);
		break;
	case OP_SLICE_TARGET:
		out[0] = pol_slice_target(in[0], in[1], &c->cfg);
		out[1] = pol_slice_floor(in[0], in[1], &c->cfg);
		out[2] = pol_slice_fit(in[0], in[1]);
		break;
	case OP_THR:
		out[0] = pol_thr_lat_cri(in[0], in[1], (u32)in[2]);
		break;
	case OP_SYS_UPDATE:
		pol_sys_update(&c->sys, &c->smp, &c->cfg);
		out[0] = pol_can_boost_slice(&c->sys, &c->cfg);
		break;
	case OP_TASK_SLICE: {
		struct pol_slice s = pol_task_slice(&c->sys, &c->cfg, in[0], (u32)in[1]);

		out[0] = s.slice_ns;
		out[1] = s.boosted;
		out[2] = pol_slice_revoke(in[2], in[3]);
		out[6] = pol_pinned_cap_may_bite(s, in[4], in[5]);
		s = pol_pinned_cap(s, in[4], in[5], in[3] & 1);
		out[3] = s.slice_ns;
		out[4] = s.boosted;
		out[5] = pol_pinned_slice(in[4], in[5]);
		break;
	}
	case OP_STEALEE:
		out[0] = (u64)(s64)pol_pick_stealee(c->doms, (u32)in[0], (u32)in[1], in[2]);
		out[1] = pol_domain_load(&c->doms[in[3] & (DIFF_NR_DOMS - 1)]);
		break;
	case OP_INVR:
		out[0] = pol_wall_to_invr(in[0], (u32)in[1], (u32)in[2]);
		break;
	case OP_NORM:
		out[0] = pol_lat_cri_norm((u32)in[0], (u32)in[1]);
		break;
	case OP_CTX_BOOST:
		out[0] = pol_ctx_boost((u32)in[0]);
		break;
	case OP_TASK_INIT:
		pol_task_init(&c->t1, (in[0] & 1) ? &c->t2 : 0, in[1], in[2], in[3]);
		break;
	case OP_PREEMPT: {
		struct pol_cpu_run a = { in[0], (u32)in[1], (u32)in[2] };
		struct pol_cpu_run b = { in[3], (u32)in[4], (u32)in[5] };

		out[0] = pol_can_preempt(&a, (u32)in[6], in[7], in[3], in[4]);
		out[1] = pol_victim_better(&a, &b);
		out[2] = pol_should_preempt((u32)in[1], in[4], in[5] & 1, &c->cfg);
		out[3] = pol_est_stop(in[0], in[1], in[2]);
		out[4] = pol_tick_wait(in[0], in[3], in[5]);
		out[5] = pol_preempt_needs_ipi(in[5], in[6]);
		out[6] = pol_tick_learn(in[1], in[2]);
		out[7] = pol_preempt_bar((u32)in[6], in[7]);
		break;
	}
	case OP_FUTEX:
		out[0] = pol_futex_classify(in[0], (s64)in[1]);
		out[1] = pol_futex_classify(in[0] & 15, (s64)(in[1] & 3) - 1);
		out[2] = pol_hardirq_mask((u32)in[2]);
		{
			/* The tick vote, from states and gaps it can meet: a gap near a whole number of periods. */
			u64 est = in[3] & POL_TICK_EST_MASK;
			u64 gap = pol_mul_sat(est, in[4] % 4) + in[5] % (1 + (est >> 3));

			out[3] = pol_tick_learn(pol_tick_pack(est, in[4] % 20), gap);
			out[4] = pol_tick_period(out[3]);
			out[5] = pol_tick_period(in[6]);
		}
		break;
	case OP_TURBULENCE: {
		struct pol_gap_clock g = { in[3], in[5] };

		out[0] = pol_lost_util(in[0], in[1], in[6]);
		out[4] = pol_irq_avg(in[7], in[0], in[6]);
		out[5] = pol_irq_util(out[4]);
		out[1] = pol_lost_avg(in[3], out[0]);
		out[2] = pol_is_turbulent(out[1]);
		out[3] = pol_wants_steady((u32)in[4], in[5]);
		/* a gap-clock reading; in[2] is the reader's total, updated in place */
		out[6] = pol_gap_read(&in[2], in[1], in[5], in[0]);
		pol_gap_open(&g, in[4]);
		pol_gap_close(&g, in[0]);
		out[7] = g.lost_total_ns;
		break;
	}
	case OP_WARMTH: {
		struct pol_warmth w = { in[0], in[1], (s32)(in[2] & 7) - 1 };

		out[0] = pol_warmth_now(&w, (s32)(in[3] & 7) - 1, in[4]);
		pol_warmth_on_stop(&w, (s32)(in[3] & 7) - 1, in[5], in[4]);
		out[1] = w.heat;
		out[2] = w.last_stop_ns;
		out[3] = (u64)(s64)w.cpu;
		out[4] = pol_warm_wait_ok(in[6], in[7], in[5]);
		break;
	}
	case OP_PLAN:
		/* band: the default (0) half the time, else 1..127 % (above 100 is clamped) */
		out[0] = pol_plan_balance(c->doms, (u32)in[0], c->plans, &c->bal_sum,
					  (in[5] & 1) ? (u32)((in[5] >> 1) % 128) : 0);
		out[1] = (u64)(s64)pol_pick_planned(c->doms, c->plans, (u32)in[0], (u32)in[1]);
		out[2] = pol_domain_avg_wgt(&c->doms[in[2] & (DIFF_NR_DOMS - 1)]);
		pol_plan_charge(&c->plans[in[1] & (DIFF_NR_DOMS - 1)],
				&c->plans[in[3] & (DIFF_NR_DOMS - 1)], in[4]);
		break;
	case OP_POWER: {
		struct pol_pm_bounds b = pol_pm_bounds_noem((u32)in[2], in[3], in[0] & 1);

		out[0] = pol_cc_cpu_use(in[0], in[1], (u32)in[2]);
		out[1] = pol_cc_req(in[3]);
		out[2] = pol_cc_nr_active(&c->caps, (u32)(in[4] % 1100), in[5]);
		out[3] = pol_pco_state((u32)(in[6] % 4), in[5], c->bounds, (u32)(in[7] % 13));
		out[4] = b.low;
		out[5] = b.high;
		out[6] = pol_pm_bounds_em(c->bounds, (u32)(in[7] % 13)).high;
		out[7] = pol_autopilot(in[3], b, (u32)(in[6] % 4));
		break;
	}
	case OP_PERF: {
		u32 rounds = (u32)(in[0] % 30);

		out[0] = pol_perf_cri(&c->t1, in[0]);
		out[1] = pol_thr_perf_cri((u32)in[1], in[2], in[3], in[4]);
		out[2] = pol_cpuperf_target(in[5], in[6]) + ((u64)(pol_perf_type((u32)in[3], in[4]) + 1) << 32);
		out[3] = pol_overflow_keep(in[7] & 1, &rounds);
		out[4] = rounds;
		{
			struct pol_cc_guard g = { (u32)in[1], (u32)(in[2] % 8) };

			pol_cc_guard_update(&g, in[3], (u32)in[4], in[6], (u32)in[5]);
			out[5] = g.floor;
			out[6] = g.calm;
		}
		break;
	}
	case OP_CBW_QUOTA:
		out[0] = pol_cbw_nquota(in[0], in[1]);
		out[1] = pol_cbw_nburst(in[2], in[1]);
		out[2] = pol_cbw_eff_quota(out[0], in[3]);
		out[3] = pol_cbw_norm(in[0], in[1]);
		out[4] = pol_cbw_grant(in[3], in[4]);
		out[5] = pol_cbw_grant(out[2], in[5]);
		break;
	case OP_CBW_PERIOD:
		/* sometimes from a fresh configuration, else from a random state */
		if (in[7] & 4)
			pol_cbw_configure(&c->cbw, in[0], in[3], in[2]);
		out[0] = pol_cbw_spent(&c->cbw, in[5]);
		out[1] = pol_cbw_limited(&c->cbw);
		pol_cbw_replenish(&c->cbw, in[5], in[4]);
		out[2] = pol_cbw_spent(&c->cbw, in[6]);
		pol_cbw_replenish(&c->cbw, in[6], in[1]);
		out[3] = pol_cbw_spent(&c->cbw, 0);
		if (in[7] & 1)
			pol_cbw_chain_build(&c->ch2, &c->ch1, in[6], in[7] & 2);
		else
			pol_cbw_chain_build(&c->ch2, 0, in[6], in[7] & 2);
		break;
	default:
		out[7] = POL_U64_MAX;
		break;
	}
#ifdef DIFF_INJECT_MISMATCH
	/* Used only to prove the differential test can fail. */
	if (c->op == OP_LAT_CRI && (out[0] & 1))
		out[0]++;
#endif
}

#endif /* __DIFF_OPS_H */
