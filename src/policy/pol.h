/* SPDX-License-Identifier: GPL-2.0 */
/* pol.h - the whole policy core. */
#ifndef __POL_H
#define __POL_H

#include "pol_base.h"
#include "pol_task.h"
#include "pol_deadline.h"
#include "pol_sys.h"
#include "pol_balance.h"
#include "pol_preempt.h"
#include "pol_cpu.h"
#include "pol_power.h"
#include "pol_cbw.h"

#endif /* __POL_H */
