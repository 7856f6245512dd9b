/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.c - built-in workloads (scaled to the topology) and a JSON
 * format that is a subset of rt-app's (see docs/sim.md). Names joined with
 * '+' combine built-ins: "game+compile".
 */
#include <ctype.h>
#include <jansson.h>
#include "sim.h"

#define US SIM_NSEC_PER_USEC
#define MS SIM_NSEC_PER_MSEC

static int name_id(char names[][32], int *n, const char *name)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return i;
	if (*n >= SIM_MAX_NAMES)
		return -1;
	snprintf(names[*n], 32, "%s", name);
	return (*n)++;
}

static int cls_id(struct sim_workload *w, const char *name)
{
	int i;

	for (i = 0; i < w->nr_cls; i++)
		if (!strcmp(w->cls[i], name))
			return i;
	if (w->nr_cls >= SIM_MAX_CLASSES)
		return SIM_MAX_CLASSES - 1;
	snprintf(w->cls[w->nr_cls], sizeof(w->cls[0]), "%s", name);
	return w->nr_cls++;
}

static int sem(struct sim_workload *w, const char *name, int init)
{
	int id = name_id(w->sem_name, &w->nr_sem, name);

	if (id >= 0 && init > 0)
		w->sem_init[id] = init;
	return id;
}

static struct sim_tmpl *tmpl(struct sim_workload *w, const char *name, const char *cls, int nice,
			     int instances, int family)
{
	struct sim_tmpl *t;

	if (w->nr_tmpl >= SIM_MAX_TMPL)
		return NULL;
	t = &w->tmpl[w->nr_tmpl++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->cls = cls_id(w, cls);
	t->nice = nice;
	t->pinned = -1;
	t->instances = instances;
	t->loops = -1;
	t->family = family;
	return t;
}

static void op(struct sim_tmpl *t, int kind, int arg, u64 a, u64 b)
{
	if (!t || t->nr_ops >= SIM_MAX_OPS)
		return;
	t->ops[t->nr_ops++] = (struct sim_op){ .kind = (u8)kind, .arg = (int16_t)arg, .a = a,
					       .b = b ? b : a };
}

static int tmpl_id(const struct sim_workload *w, const struct sim_tmpl *t)
{
	return (int)(t - w->tmpl);
}

/* ---- built-ins ---- */

/*
 * A game: a 60 Hz frame pipeline input -> sim -> render -> present handing
 * off through semaphores (futex-like), an audio thread at 5.33 ms, and
 * two background workers.
 */
static void wl_game(struct sim_workload *w, int ncpu)
{
	int s_sim = sem(w, "game.sim", 0), s_ren = sem(w, "game.render", 0);
	int s_pre = sem(w, "game.present", 0);
	struct sim_tmpl *t;

	(void)ncpu;
	w->frame_period_ns = 16667 * US;
	w->frame_cls = cls_id(w, "game");
	t = tmpl(w, "game.input", "game", 0, 1, 1);
	op(t, OP_TIMER, 0, 16667 * US, 0);
	op(t, OP_FRAME_START, 0, 0, 0);
	op(t, OP_RUN, 0, 100 * US, 300 * US);
	op(t, OP_RESUME, s_sim, 0, 0);
	t = tmpl(w, "game.sim", "game", 0, 1, 1);
	op(t, OP_SUSPEND, s_sim, 0, 0);
	op(t, OP_RUN, 0, 1500 * US, 3 * MS);
	op(t, OP_RESUME, s_ren, 0, 0);
	t = tmpl(w, "game.render", "game", 0, 1, 1);
	op(t, OP_SUSPEND, s_ren, 0, 0);
	op(t, OP_RUN, 0, 2 * MS, 4 * MS);
	op(t, OP_RESUME, s_pre, 0, 0);
	t = tmpl(w, "game.present", "game", 0, 1, 1);
	op(t, OP_SUSPEND, s_pre, 0, 0);
	op(t, OP_RUN, 0, 300 * US, 600 * US);
	op(t, OP_FRAME_END, 0, 0, 0);
	t = tmpl(w, "game.audio", "audio", 0, 1, 1);
	op(t, OP_TIMER, 0, 5333 * US, 0);
	op(t, OP_RUN, 0, 200 * US, 400 * US);
	t = tmpl(w, "game.bg", "bg", 0, 2, 1);
	op(t, OP_RUN, 0, 1 * MS, 3 * MS);
	op(t, OP_SLEEP, 0, 5 * MS, 15 * MS);
}

/* make -jN: a driver forks compiler jobs (two bursts around an I/O wait). */
static void wl_compile(struct sim_workload *w, int ncpu)
{
	int jobs = sem(w, "make.jobs", ncpu);
	struct sim_tmpl *t, *cc;

	cc = tmpl(w, "make.cc", "compile", 0, 0, 2);
	op(cc, OP_RUN, 0, 3 * MS, 40 * MS);
	op(cc, OP_SLEEP, 0, 200 * US, 1 * MS);
	op(cc, OP_RUN, 0, 2 * MS, 20 * MS);
	op(cc, OP_RESUME, jobs, 0, 0);
	op(cc, OP_EXIT, 0, 0, 0);
	t = tmpl(w, "make", "compile", 0, 1, 2);
	op(t, OP_SUSPEND, jobs, 0, 0);
	op(t, OP_RUN, 0, 50 * US, 100 * US);
	op(t, OP_FORK, tmpl_id(w, cc), 0, 0);
}

/*
 * A server: open-loop arrivals (60 % of the topology's throughput), a pool of
 * 2 workers per CPU, and a short critical section on a sharded lock.
 */
static void wl_server(struct sim_workload *w, int ncpu, u64 cap_milli)
{
	int shards = ncpu / 16 > 1 ? ncpu / 16 : 1, i;
	char name[32];

	w->req_work_min = 100 * US;
	w->req_work_max = 400 * US;
	/* mean work 250 us: 60 % of the topology's throughput (SMT and capacity included) */
	w->req_rate = cap_milli * 600 * POL_NSEC_PER_SEC / 1000 / 1000 / (250 * US);
	w->req_cls = cls_id(w, "server");
	for (i = 0; i < shards; i++) {
		struct sim_tmpl *t;
		int lk;

		snprintf(name, sizeof(name), "srv.db%d", i);
		lk = name_id(w->lock_name, &w->nr_lock, name);
		snprintf(name, sizeof(name), "srv.worker%d", i);
		t = tmpl(w, name, "server", 0, 2 * ncpu / shards, 3);
		op(t, OP_REQ_WAIT, 0, 0, 0);
		op(t, OP_REQ_RUN, 0, 0, 0);
		op(t, OP_LOCK, lk, 0, 0);
		op(t, OP_RUN, 0, 2 * US, 6 * US);
		op(t, OP_UNLOCK, lk, 0, 0);
		op(t, OP_REQ_DONE, 0, 0, 0);
	}
}

/* CPU hogs, two per CPU, at nice -5, 0, 5 and 10. */
static void wl_batch(struct sim_workload *w, int ncpu)
{
	static const int nices[4] = { -5, 0, 5, 10 };
	int n = 2 * ncpu / 4 > 0 ? 2 * ncpu / 4 : 1, i;
	char name[32];

	for (i = 0; i < 4; i++) {
		struct sim_tmpl *t;

		snprintf(name, sizeof(name), "batch.nice%d", nices[i]);
		t = tmpl(w, name, "batch", nices[i], n, 4);
		op(t, OP_RUN, 0, 100 * MS, 0);
	}
}

/* Periodic light load: a quarter of the CPUs' worth of 10 ms timers. */
static void wl_light(struct sim_workload *w, int ncpu)
{
	struct sim_tmpl *t = tmpl(w, "light", "light", 0, ncpu / 4 > 0 ? ncpu / 4 : 1, 5);

	op(t, OP_TIMER, 0, 10 * MS, 0);
	op(t, OP_RUN, 0, 300 * US, 1 * MS);
}

/*
 * Interrupt / RT load: a SCHED_FIFO task pinned to CPU 0 and one to CPU 2
 * (the first threads of the first two cores), each busy half the time in
 * 0.5-1.5 ms bursts. The scheduler under test never sees them; they take the
 * CPU from its tasks (for LAVD: lost time, turbulence).
 */
static void wl_irq(struct sim_workload *w, int ncpu)
{
	int cpus[2] = { 0, ncpu > 2 ? 2 : ncpu - 1 }, i;
	char name[32];

	for (i = 0; i < (ncpu > 1 ? 2 : 1); i++) {
		struct sim_tmpl *t;

		snprintf(name, sizeof(name), "irq.cpu%d", cpus[i]);
		t = tmpl(w, name, "irq", 0, 1, 6);
		if (!t)
			return;
		t->rt = 1;
		t->pinned = cpus[i];
		op(t, OP_RUN, 0, 500 * US, 1500 * US);
		op(t, OP_SLEEP, 0, 500 * US, 1500 * US);
	}
}

/* ---- JSON (rt-app subset) ---- */

static int json_us_range(json_t *v, u64 *a, u64 *b)
{
	if (json_is_integer(v) || json_is_real(v)) {
		*a = *b = (u64)(json_number_value(v) * (double)US);
		return 0;
	}
	if (json_is_array(v) && json_array_size(v) == 2) {
		*a = (u64)(json_number_value(json_array_get(v, 0)) * (double)US);
		*b = (u64)(json_number_value(json_array_get(v, 1)) * (double)US);
		return *b >= *a ? 0 : -1;
	}
	return -1;
}

/* Event key without its numeric suffix (rt-app allows run0, run1, ...). */
static void key_base(const char *k, char *out, size_t n)
{
	size_t l = strlen(k);

	while (l && isdigit((unsigned char)k[l - 1]))
		l--;
	if (l >= n)
		l = n - 1;
	memcpy(out, k, l);
	out[l] = 0;
}

static int json_events(struct sim_workload *w, struct sim_tmpl *t, json_t *obj, const char *self,
		       char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		char k[32];
		u64 a, b;
		const char *s = json_is_string(v) ? json_string_value(v) : self;
		int i;

		key_base(key, k, sizeof(k));
		if (!strcmp(k, "run") || !strcmp(k, "runtime") || !strcmp(k, "sleep")) {
			if (json_us_range(v, &a, &b)) {
				snprintf(err, errlen, "task %s: %s needs microseconds or [min, max]",
					 t->name, key);
				return -1;
			}
			op(t, k[0] == 's' ? OP_SLEEP : OP_RUN, 0, a, b);
		} else if (!strcmp(k, "timer")) {
			json_t *p = json_is_object(v) ? json_object_get(v, "period") : v;

			if (json_us_range(p, &a, &b) || !a) {
				snprintf(err, errlen, "task %s: timer needs a period", t->name);
				return -1;
			}
			op(t, OP_TIMER, 0, a, a);
		} else if (!strcmp(k, "suspend") || !strcmp(k, "resume")) {
			op(t, k[0] == 's' ? OP_SUSPEND : OP_RESUME, sem(w, s, 0), 0, 0);
		} else if (!strcmp(k, "lock") || !strcmp(k, "unlock")) {
			op(t, k[0] == 'l' ? OP_LOCK : OP_UNLOCK, name_id(w->lock_name, &w->nr_lock, s),
			   0, 0);
		} else if (!strcmp(k, "barrier")) {
			op(t, OP_BARRIER, name_id(w->bar_name, &w->nr_bar, s), 0, 0);
		} else if (!strcmp(k, "fork")) {
			for (i = 0; i < w->nr_tmpl; i++)
				if (!strcmp(w->tmpl[i].name, s))
					break;
			if (i == w->nr_tmpl) {
				snprintf(err, errlen, "task %s: fork of unknown task '%s'", t->name, s);
				return -1;
			}
			op(t, OP_FORK, i, 0, 0);
		} else if (!strcmp(k, "exit")) {
			op(t, OP_EXIT, 0, 0, 0);
		} else if (!strcmp(k, "frame_start")) {
			op(t, OP_FRAME_START, 0, 0, 0);
		} else if (!strcmp(k, "frame_end")) {
			op(t, OP_FRAME_END, 0, 0, 0);
		} else if (!strcmp(k, "req_wait")) {
			op(t, OP_REQ_WAIT, 0, 0, 0);
		} else if (!strcmp(k, "req_run")) {
			op(t, OP_REQ_RUN, 0, 0, 0);
		} else if (!strcmp(k, "req_done")) {
			op(t, OP_REQ_DONE, 0, 0, 0);
		} else if (!strcmp(k, "phases")) {
			const char *pk;
			json_t *pv;

			json_object_foreach(v, pk, pv) {
				json_t *lp = json_object_get(pv, "loop");
				int n = lp ? (int)json_integer_value(lp) : 1, r;

				for (r = 0; r < n; r++)
					if (json_events(w, t, pv, self, err, errlen))
						return -1;
			}
		} else if (!strcmp(k, "instance") || !strcmp(k, "instance_per_cpu") ||
			   !strcmp(k, "loop") || !strcmp(k, "nice") || !strcmp(k, "priority") ||
			   !strcmp(k, "cpus") || !strcmp(k, "class") || !strcmp(k, "kthread") ||
			   !strcmp(k, "policy") || !strcmp(k, "fork_only")) {
			continue;	/* task attributes, not events */
		} else {
			snprintf(err, errlen, "task %s: unknown event '%s'", t->name, key);
			return -1;
		}
		if (t->nr_ops >= SIM_MAX_OPS) {
			snprintf(err, errlen, "task %s: more than %d events", t->name, SIM_MAX_OPS);
			return -1;
		}
	}
	return 0;
}

static int wl_json(struct sim_workload *w, const char *path, int ncpu, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je), *tasks, *glob, *v, *x;
	const char *name;
	int rc = -1, fam = 10;

	if (!root) {
		snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return -1;
	}
	tasks = json_object_get(root, "tasks");
	if (!json_is_object(tasks) || !json_object_size(tasks)) {
		snprintf(err, errlen, "%s: \"tasks\" must be a non-empty object", path);
		goto out;
	}
	glob = json_object_get(root, "global");
	if (glob) {
		json_t *r = json_object_get(glob, "requests"), *sems = json_object_get(glob, "sems");
		const char *sk;
		json_t *sv;

		if ((x = json_object_get(glob, "frame_period_us")))
			w->frame_period_ns = (u64)json_integer_value(x) * US;
		if (r) {
			if ((x = json_object_get(r, "rate")))
				w->req_rate = (u64)json_number_value(x);
			if ((x = json_object_get(r, "rate_per_cpu")))
				w->req_rate = (u64)(json_number_value(x) * ncpu);
			if ((x = json_object_get(r, "work_us")) &&
			    json_us_range(x, &w->req_work_min, &w->req_work_max)) {
				snprintf(err, errlen, "requests.work_us: microseconds or [min, max]");
				goto out;
			}
			w->req_cls = cls_id(w, json_is_string(json_object_get(r, "class")) ?
				     json_string_value(json_object_get(r, "class")) : "server");
		}
		json_object_foreach(sems, sk, sv)
			sem(w, sk, (int)json_integer_value(sv));
	}
	/* First pass: templates, so that fork can name any of them. */
	json_object_foreach(tasks, name, v) {
		const char *cls = json_is_string(json_object_get(v, "class")) ?
				  json_string_value(json_object_get(v, "class")) : name;
		int inst = 1, nice = 0;
		struct sim_tmpl *t;
		json_t *cpus;

		if ((x = json_object_get(v, "instance")))
			inst = (int)json_integer_value(x);
		if ((x = json_object_get(v, "instance_per_cpu")))
			inst = (int)(json_number_value(x) * ncpu + 0.5);
		if (json_is_true(json_object_get(v, "fork_only")))
			inst = 0;
		if ((x = json_object_get(v, "nice")))
			nice = (int)json_integer_value(x);
		t = tmpl(w, name, cls, nice, inst, fam);
		if (!t) {
			snprintf(err, errlen, "more than %d tasks", SIM_MAX_TMPL);
			goto out;
		}
		if ((x = json_object_get(v, "loop")))
			t->loops = (int)json_integer_value(x);
		t->kthread = json_is_true(json_object_get(v, "kthread"));
		cpus = json_object_get(v, "cpus");
		if (json_is_array(cpus) && json_array_size(cpus) == 1)
			t->pinned = (int)json_integer_value(json_array_get(cpus, 0));
		if (t->pinned >= ncpu) {
			snprintf(err, errlen, "task %s: CPU %d does not exist", name, t->pinned);
			goto out;
		}
		/* rt-app's policy: SCHED_FIFO / SCHED_RR run above the scheduler under test */
		if ((x = json_object_get(v, "policy"))) {
			const char *pol = json_is_string(x) ? json_string_value(x) : "";

			if (!strcmp(pol, "SCHED_FIFO") || !strcmp(pol, "SCHED_RR")) {
				t->rt = 1;
			} else if (strcmp(pol, "SCHED_OTHER")) {
				snprintf(err, errlen, "task %s: policy '%s' not supported (SCHED_OTHER, "
					 "SCHED_FIFO, SCHED_RR)", name, pol);
				goto out;
			}
			if (t->rt && t->pinned < 0) {
				snprintf(err, errlen, "task %s: a %s task needs \"cpus\" with one CPU",
					 name, pol);
				goto out;
			}
		}
	}
	json_object_foreach(tasks, name, v) {
		int i;

		for (i = 0; i < w->nr_tmpl; i++)
			if (!strcmp(w->tmpl[i].name, name))
				break;
		if (json_events(w, &w->tmpl[i], v, name, err, errlen))
			goto out;
		if (!w->tmpl[i].nr_ops) {
			snprintf(err, errlen, "task %s has no events", name);
			goto out;
		}
	}
	if (w->frame_period_ns)
		w->frame_cls = 0;
	rc = 0;
out:
	json_decref(root);
	return rc;
}

/* Resume followed by a block is a hand-off (SCX_WAKE_SYNC); count barrier users. */
static void finish(struct sim_workload *w)
{
	int i, k;

	for (i = 0; i < w->nr_tmpl; i++) {
		struct sim_tmpl *t = &w->tmpl[i];

		for (k = 0; k < t->nr_ops; k++) {
			struct sim_op *o = &t->ops[k];
			int nk = t->ops[(k + 1) % t->nr_ops].kind;

			if (o->kind == OP_RESUME)
				o->sync = nk == OP_SUSPEND || nk == OP_SLEEP || nk == OP_TIMER ||
					  nk == OP_REQ_WAIT || nk == OP_EXIT;
			if (o->kind == OP_BARRIER)
				w->bar_n[o->arg] += t->instances;
		}
	}
}

int workload_load(struct sim_workload *w, const char *n, const struct sim_topo *t, char *err,
		  size_t errlen)
{
	char buf[128], *tok, *save = NULL;

	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", n);
	if (strchr(n, '/') || strstr(n, ".json")) {
		if (wl_json(w, n, t->nr_cpus, err, errlen))
			return -1;
		finish(w);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", n);
	for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		if (!strcmp(tok, "game"))
			wl_game(w, t->nr_cpus);
		else if (!strcmp(tok, "compile"))
			wl_compile(w, t->nr_cpus);
		else if (!strcmp(tok, "server"))
			wl_server(w, t->nr_cpus, t->capacity_milli);
		else if (!strcmp(tok, "batch"))
			wl_batch(w, t->nr_cpus);
		else if (!strcmp(tok, "light"))
			wl_light(w, t->nr_cpus);
		else if (!strcmp(tok, "irq"))
			wl_irq(w, t->nr_cpus);
		else {
			snprintf(err, errlen, "unknown workload '%s' (game, server, batch, compile, "
				 "light, irq, combined with '+', or a .json file)", tok);
			return -1;
		}
	}
	finish(w);
	return 0;
}
