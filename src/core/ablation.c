#include "ablation.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static const struct {
    const char *side, *sub;
} parts[ABL_PART_COUNT] = {
    [ABL_ENC_SELF] = {"enc", "self_attn"}, [ABL_ENC_FFN] = {"enc", "ffn"},          [ABL_DEC_SELF] = {"dec", "self_attn"},
    [ABL_DEC_CROSS] = {"dec", "cross_attn"}, [ABL_DEC_FFN] = {"dec", "ffn"},
};

const char *abl_part_name(AblPart part) {
    static const char *const names[ABL_PART_COUNT] = {"enc.self_attn", "enc.ffn", "dec.self_attn", "dec.cross_attn", "dec.ffn"};
    return part < ABL_PART_COUNT ? names[part] : "?";
}

// A whole number from 1 to hi at *p, moving *p past it.
static bool number(const char **p, long hi, long *out) {
    char *end;
    errno = 0;
    if (**p < '0' || **p > '9') return false;
    long v = strtol(*p, &end, 10);
    if (errno || v < 1 || v > hi) return false;
    *p = end;
    *out = v;
    return true;
}

// One part, the whole of text.
static bool parse_item(const char *text, AblItem *out) {
    const char *p = text;
    long layer, head = 0;
    if (p[0] == 'L') {  // L2H1: the decoder's cross-attention
        p++;
        if (!number(&p, 64, &layer) || *p++ != 'H' || !number(&p, 256, &head) || *p) return false;
        *out = (AblItem){ABL_DEC_CROSS, (uint8_t)layer, (uint16_t)head};
        return true;
    }
    for (int k = 0; k < ABL_PART_COUNT; k++) {
        size_t ns = strlen(parts[k].side), nb = strlen(parts[k].sub);
        p = text;
        if (strncmp(p, parts[k].side, ns) || strncmp(p + ns, ".L", 2)) continue;
        p += ns + 2;
        if (!number(&p, 64, &layer) || *p++ != '.' || strncmp(p, parts[k].sub, nb)) continue;
        p += nb;
        head = 0;
        if (*p == '.' && k != ABL_ENC_FFN && k != ABL_DEC_FFN) {
            p++;
            if (*p++ != 'H' || !number(&p, 256, &head)) return false;
        }
        if (*p) return false;
        *out = (AblItem){(uint8_t)k, (uint8_t)layer, (uint16_t)head};
        return true;
    }
    return false;
}

int abl_parse(const char *text, Ablation *out, char *why, size_t size) {
    Ablation a = {0};
    const char *p = text;
    while (*p == ' ') p++;
    if (!strcmp(p, "none") || !*p) {
        *out = a;
        return 0;
    }
    while (*p) {
        char item[64];
        size_t len = strcspn(p, ",");
        const char *next = p + len;
        while (len > 0 && p[len - 1] == ' ') len--;  // spaces around the commas
        if (len == 0 || len >= sizeof item) {
            snprintf(why, size, "has an empty or overlong part in \"%s\"", ERR_QUOTE(text, 80));
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        AblItem it;
        if (!parse_item(item, &it)) {
            snprintf(why, size, "\"%s\" is not a head or sub-layer (e.g. dec.L2.cross_attn.H1, L2H1, enc.L1.ffn; layers 1 to 64, heads 1 to 256)",
                     ERR_QUOTE(item, 40));
            return -1;
        }
        bool dup = false;
        for (int i = 0; i < a.n; i++) dup = dup || !memcmp(&a.items[i], &it, sizeof it);
        if (!dup) {
            if (a.n == ABL_MAX) {
                snprintf(why, size, "names more than %d parts", ABL_MAX);
                return -1;
            }
            a.items[a.n++] = it;
        }
        p = *next ? next + 1 : next;
        while (*p == ' ') p++;
        if (*next && !*p) {
            snprintf(why, size, "ends with a comma: \"%s\"", ERR_QUOTE(text, 80));
            return -1;
        }
    }
    *out = a;
    return 0;
}

int abl_check(const Ablation *a, int n_enc, int n_dec, int nhead, char *why, size_t size) {
    for (int i = 0; i < a->n; i++) {
        AblItem it = a->items[i];
        bool enc = it.part == ABL_ENC_SELF || it.part == ABL_ENC_FFN;
        int layers = enc ? n_enc : n_dec;
        char name[64];
        abl_item_name(it, name, sizeof name);
        if (it.layer > layers) {
            snprintf(why, size, "cannot silence %s: the model's %s has %d layer%s", name, enc ? "encoder" : "decoder", layers, layers == 1 ? "" : "s");
            return -1;
        }
        if (it.head > nhead) {
            snprintf(why, size, "cannot silence %s: the model has %d head%s per attention layer", name, nhead, nhead == 1 ? "" : "s");
            return -1;
        }
    }
    return 0;
}

int abl_keep(Ablation *a, int n_enc, int n_dec, int nhead, Ablation *dropped) {
    Ablation kept = {0}, gone = {0};
    for (int i = 0; i < a->n; i++) {
        AblItem it = a->items[i];
        bool enc = it.part == ABL_ENC_SELF || it.part == ABL_ENC_FFN;
        bool has = it.layer <= (enc ? n_enc : n_dec) && it.head <= nhead;
        if (has) kept.items[kept.n++] = it;
        else gone.items[gone.n++] = it;
    }
    *a = kept;
    if (dropped) *dropped = gone;
    return gone.n;
}

bool abl_sublayer(const Ablation *a, AblPart part, int layer) {
    for (int i = 0; i < a->n; i++)
        if (a->items[i].part == part && a->items[i].layer == layer && a->items[i].head == 0) return true;
    return false;
}

bool abl_head(const Ablation *a, AblPart part, int layer, int head) {
    for (int i = 0; i < a->n; i++)
        if (a->items[i].part == part && a->items[i].layer == layer && (a->items[i].head == head || a->items[i].head == 0)) return true;
    return false;
}

int abl_toggle(Ablation *a, AblItem item) {
    for (int i = 0; i < a->n; i++)
        if (!memcmp(&a->items[i], &item, sizeof item)) {
            memmove(&a->items[i], &a->items[i + 1], (size_t)(a->n - i - 1) * sizeof item);
            a->n--;
            return 0;
        }
    if (a->n == ABL_MAX) return -1;
    a->items[a->n++] = item;
    return 0;
}

char *abl_item_name(AblItem it, char *buf, size_t size) {
    if (it.part >= ABL_PART_COUNT) snprintf(buf, size, "?");
    else if (it.head) snprintf(buf, size, "%s.L%d.%s.H%d", parts[it.part].side, it.layer, parts[it.part].sub, it.head);
    else snprintf(buf, size, "%s.L%d.%s", parts[it.part].side, it.layer, parts[it.part].sub);
    return buf;
}

char *abl_format(const Ablation *a, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < a->n && len < size; i++) {
        char name[64];
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", abl_item_name(a->items[i], name, sizeof name));
    }
    return buf;
}
