#include "nav.h"

int nav_stop(const Trace *t, int step, int head, int dir) {
    int n = trace_count(t);
    for (int i = step + dir; i >= 0 && i < n; i += dir) {
        const Step *s = trace_step(t, i);
        if (s->stage->stop && (!s->stage->per_head || s->head == head)) return i;
    }
    return dir > 0 ? n - 1 : 0;
}

int nav_same_stage(const Trace *t, int step, int layer, int head) {
    Step probe = *trace_step(t, step);
    probe.layer = layer;
    char id[128];
    return trace_find(t, trace_stage_id(&probe, id, sizeof id), head, probe.dstep);
}
