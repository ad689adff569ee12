#include "stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Shorthands for the table's columns.
#define SRC STAGE_SOURCE
#define ENC STAGE_ENCODER
#define TGT STAGE_TARGET
#define DEC STAGE_DECODER
#define OUT STAGE_OUTPUT
#define CHO STAGE_DECODING
#define EMB STAGE_BLOCK_EMBEDDING
#define MSK STAGE_BLOCK_MASK
#define SELF STAGE_BLOCK_SELF_ATTN
#define CROSS STAGE_BLOCK_CROSS_ATTN
#define NORM STAGE_BLOCK_ADD_NORM
#define FFN STAGE_BLOCK_FFN
#define FINAL STAGE_BLOCK_FINAL_NORM
#define PROJ STAGE_BLOCK_PROJECTION
#define CHOICE STAGE_BLOCK_CHOICE
#define GM STAGE_GROUP_MASKING

// The nine values of a multi-head attention sub-layer, for encoder self (E),
// decoder self (D) and cross (C) attention.
#define ATTN(P, part, block, sub, causal, gm)                                                                                                  \
    {P ".q", "matrix", STAGE_KIND_MATRIX, part, block, sub, true, true, false, false, false, false, 0, 0, {"Q (queries)", "Q（查詢）"}},       \
    {P ".k", "matrix", STAGE_KIND_MATRIX, part, block, sub, true, true, false, false, false, false, 0, 0, {"K (keys)", "K（鍵）"}},            \
    {P ".v", "matrix", STAGE_KIND_MATRIX, part, block, sub, true, true, false, false, false, false, 0, 0, {"V (values)", "V（值）"}},          \
    {P ".scores", "scores", STAGE_KIND_SCORES, part, block, sub, true, true, true, false, false, false, gm, 1, {"scores", "分數"}},            \
    {P ".masked_scores", "scores", STAGE_KIND_SCORES, part, block, sub, true, true, true, false, false, causal, gm, 2,                         \
     {"masked scores", "遮罩後的分數"}},                                                                                                       \
    {P ".weights", "attention", STAGE_KIND_ATTENTION, part, block, sub, true, true, true, false, true, causal, gm, 3, {"weights", "權重"}},    \
    {P ".head_out", "matrix", STAGE_KIND_MATRIX, part, block, sub, true, true, false, false, false, false, 0, 0, {"head output", "單頭輸出"}}, \
    {P ".concat", "matrix", STAGE_KIND_MATRIX, part, block, sub, true, false, false, false, false, false, 0, 0,                                \
     {"heads concatenated", "各頭串接"}},                                                                                                      \
    {P ".out_proj", "matrix", STAGE_KIND_MATRIX, part, block, sub, true, false, true, false, false, false, 0, 0, {"output", "輸出"}}

#define ADD_NORM(P, part, sub, res, norm)                                                                                                      \
    {P "." res, "matrix", STAGE_KIND_MATRIX, part, NORM, sub, true, false, false, false, false, false, 0, 0, {"residual sum", "殘差相加"}},    \
    {P "." norm, "matrix", STAGE_KIND_MATRIX, part, NORM, sub, true, false, true, true, false, false, 0, 0, {"LayerNorm", "層正規化"}}

#define FEED_FORWARD(P, part, sub)                                                                                                             \
    {P ".ffn.hidden", "matrix", STAGE_KIND_MATRIX, part, FFN, sub, true, false, false, false, false, false, 0, 0,                              \
     {"feed-forward hidden layer", "前饋網路隱藏層"}},                                                                                         \
    {P ".ffn.out", "matrix", STAGE_KIND_MATRIX, part, FFN, sub, true, false, true, false, false, false, 0, 0,                                  \
     {"feed-forward output", "前饋網路輸出"}}

static const StageInfo stages[] = {
    {"src.tokens", "tokens", STAGE_KIND_TOKENS, SRC, EMB, 0, false, false, true, false, false, false, 0, 0, {"tokens", "詞元"}},
    {"src.padding_mask", "mask", STAGE_KIND_MASK, SRC, MSK, 0, false, false, false, false, false, false, 0, 0, {"padding mask", "填補遮罩"}},
    {"src.embed", "matrix", STAGE_KIND_MATRIX, SRC, EMB, 0, false, false, false, false, false, false, 0, 0, {"embeddings", "嵌入向量"}},
    {"src.pos_enc", "matrix", STAGE_KIND_MATRIX, SRC, EMB, 0, false, false, false, false, false, false, 0, 0, {"positional encoding", "位置編碼"}},
    {"src.input", "matrix", STAGE_KIND_MATRIX, SRC, EMB, 0, false, false, true, true, false, false, 0, 0,
     {"embedding + position", "嵌入＋位置"}},
    ATTN("enc.self_attn", ENC, SELF, 1, false, 0),
    ADD_NORM("enc", ENC, 1, "residual1", "norm1"),
    FEED_FORWARD("enc", ENC, 2),
    ADD_NORM("enc", ENC, 2, "residual2", "norm2"),
    {"enc.output", "matrix", STAGE_KIND_MATRIX, ENC, FINAL, 0, false, false, true, true, false, false, 0, 0,
     {"memory (final LayerNorm)", "記憶（最後的層正規化）"}},
    {"dec.tokens", "tokens", STAGE_KIND_TOKENS, TGT, EMB, 0, false, false, true, false, false, false, 0, 0,
     {"tokens (shifted right)", "詞元（右移一位）"}},
    {"dec.embed", "matrix", STAGE_KIND_MATRIX, TGT, EMB, 0, false, false, false, false, false, false, 0, 0, {"embeddings", "嵌入向量"}},
    {"dec.pos_enc", "matrix", STAGE_KIND_MATRIX, TGT, EMB, 0, false, false, false, false, false, false, 0, 0, {"positional encoding", "位置編碼"}},
    {"dec.input", "matrix", STAGE_KIND_MATRIX, TGT, EMB, 0, false, false, true, false, false, false, 0, 0,
     {"embedding + position", "嵌入＋位置"}},
    {"dec.look_ahead_mask", "mask", STAGE_KIND_MASK, TGT, MSK, 0, false, false, true, true, false, true, GM, 0,
     {"look-ahead mask", "前瞻遮罩"}},
    ATTN("dec.self_attn", DEC, SELF, 1, true, GM),
    ADD_NORM("dec", DEC, 1, "residual1", "norm1"),
    ATTN("dec.cross_attn", DEC, CROSS, 2, false, 0),
    ADD_NORM("dec", DEC, 2, "residual2", "norm2"),
    FEED_FORWARD("dec", DEC, 3),
    ADD_NORM("dec", DEC, 3, "residual3", "norm3"),
    {"dec.output", "matrix", STAGE_KIND_MATRIX, DEC, FINAL, 0, false, false, true, true, false, false, 0, 0,
     {"output (final LayerNorm)", "輸出（最後的層正規化）"}},
    {"dec.logits", "matrix", STAGE_KIND_MATRIX, OUT, PROJ, 0, false, false, false, false, false, false, 0, 0, {"logits", "logits（未正規化分數）"}},
    {"dec.probs", "probs", STAGE_KIND_PROBS, OUT, PROJ, 0, false, false, true, true, false, false, 0, 0,
     {"next-token probabilities", "下一個詞元的機率"}},
    {"dec.top_k", "top_k", STAGE_KIND_TOP_K, CHO, CHOICE, 0, false, false, true, false, false, false, 0, 0,
     {"most likely tokens", "最可能的詞元"}},
    {"dec.sample", "probs", STAGE_KIND_PROBS, CHO, CHOICE, 0, false, false, true, false, false, false, 0, 0, {"the draw", "抽樣"}},
    {"dec.beam", "beam", STAGE_KIND_BEAM, CHO, CHOICE, 0, false, false, true, true, false, false, 0, 0, {"beam search", "集束搜尋"}},
    {"dec.choice", "choice", STAGE_KIND_CHOICE, CHO, CHOICE, 0, false, false, true, true, false, false, 0, 0, {"the choice", "選出的詞元"}},
    {"dec.loss", "loss", STAGE_KIND_LOSS, CHO, CHOICE, 0, false, false, true, true, false, false, 0, 0,
     {"loss at each position", "各位置的損失"}},
    {"out.tokens", "tokens", STAGE_KIND_TOKENS, CHO, CHOICE, 0, false, false, true, true, false, false, 0, 0, {"the output", "輸出的句子"}},
};

#define N_STAGES ((int)(sizeof stages / sizeof *stages))

int stage_count(void) { return N_STAGES; }

const StageInfo *stage_at(int i) { return i >= 0 && i < N_STAGES ? &stages[i] : NULL; }

const StageInfo *stage_find(const char *name) {
    for (int i = 0; i < N_STAGES; i++)
        if (!strcmp(stages[i].name, name)) return &stages[i];
    return NULL;
}

const StageInfo *stage_parse_id(const char *stage_id, int *layer) {
    *layer = 0;
    // "enc.L12.x" → "enc.x", layer 12
    const char *dot = strchr(stage_id, '.');
    if (dot && dot[1] == 'L' && dot[2] >= '1' && dot[2] <= '9') {
        char *end;
        long l = strtol(dot + 2, &end, 10);
        if (*end != '.' || l > 999) return NULL;
        char name[96];
        int n = snprintf(name, sizeof name, "%.*s%s", (int)(dot - stage_id), stage_id, end);
        const StageInfo *s = n > 0 && (size_t)n < sizeof name ? stage_find(name) : NULL;
        if (!s || !s->layered) return NULL;
        *layer = (int)l;
        return s;
    }
    const StageInfo *s = stage_find(stage_id);
    return s && !s->layered ? s : NULL;
}

char *stage_id(const StageInfo *s, int layer, char *buf, size_t size) {
    const char *dot = strchr(s->name, '.');
    if (s->layered && layer > 0 && layer < 1000 && dot && size >= strlen(s->name) + 6) {
        // "enc" ".L12" ".self_attn.q" without snprintf: a trace's JSON asks for every step's
        size_t head = (size_t)(dot - s->name), n = head;
        memcpy(buf, s->name, head);
        buf[n++] = '.';
        buf[n++] = 'L';
        if (layer >= 100) buf[n++] = (char)('0' + layer / 100);
        if (layer >= 10) buf[n++] = (char)('0' + layer / 10 % 10);
        buf[n++] = (char)('0' + layer % 10);
        strcpy(buf + n, dot);
    } else if (s->layered && layer > 0 && dot)
        snprintf(buf, size, "%.*s.L%d%s", (int)(dot - s->name), s->name, layer, dot);
    else if (strlen(s->name) < size)
        strcpy(buf, s->name);
    else
        snprintf(buf, size, "%s", s->name);
    return buf;
}

char *stage_human_name(const StageInfo *s, int layer, StageLang lang, char *buf, size_t size) {
    static const char *const parts[][2] = {
        [STAGE_SOURCE] = {"Source", "來源句"},       [STAGE_ENCODER] = {"Encoder", "編碼器"},
        [STAGE_TARGET] = {"Decoder input", "解碼器輸入"}, [STAGE_DECODER] = {"Decoder", "解碼器"},
        [STAGE_OUTPUT] = {"Output layer", "輸出層"},  [STAGE_DECODING] = {"Decoding", "解碼"},
    };
    static const char *const blocks[STAGE_BLOCK_CHOICE + 1][2] = {  // NULL: a block named by the part alone
        [STAGE_BLOCK_SELF_ATTN] = {"self-attention", "自注意力"},
        [STAGE_BLOCK_CROSS_ATTN] = {"cross-attention", "交叉注意力"},
        [STAGE_BLOCK_ADD_NORM] = {"Add & Norm", "殘差與正規化"},
        [STAGE_BLOCK_FFN] = {"feed-forward", "前饋網路"},
    };
    int z = lang == STAGE_ZH_TW;
    const char *block = blocks[s->block][z];
    const char *sep = z ? "・" : " · ";
    if (s->block == STAGE_BLOCK_SELF_ATTN && s->part == STAGE_DECODER) block = z ? "遮罩自注意力" : "masked self-attention";
    if (!s->layered) snprintf(buf, size, "%s%s%s", parts[s->part][z], sep, s->what[z]);
    else if (z) snprintf(buf, size, "%s第 %d 層%s%s%s%s", parts[s->part][z], layer, sep, block ? block : "", block ? sep : "", s->what[z]);
    else snprintf(buf, size, "%s layer %d%s%s%s%s", parts[s->part][z], layer, sep, block ? block : "", block ? sep : "", s->what[z]);
    return buf;
}

const char *stage_box_name(const StageInfo *s, StageLang lang) {
    static const char *const boxes[STAGE_BLOCK_CHOICE + 1][2] = {
        [STAGE_BLOCK_EMBEDDING] = {"Embedding + position", "嵌入＋位置"},
        [STAGE_BLOCK_SELF_ATTN] = {"Self-attention", "自注意力"},
        [STAGE_BLOCK_CROSS_ATTN] = {"Cross-attention", "交叉注意力"},
        [STAGE_BLOCK_ADD_NORM] = {"Add & Norm", "殘差與正規化"},
        [STAGE_BLOCK_FFN] = {"Feed-forward", "前饋網路"},
        [STAGE_BLOCK_FINAL_NORM] = {"Final LayerNorm", "最後的層正規化"},
        [STAGE_BLOCK_PROJECTION] = {"Linear + softmax", "線性層＋softmax"},
        [STAGE_BLOCK_CHOICE] = {"Next token", "下一個詞元"},
    };
    int z = lang == STAGE_ZH_TW;
    if (s->block == STAGE_BLOCK_MASK) return s->part == STAGE_SOURCE ? (z ? "填補遮罩" : "Padding mask") : (z ? "前瞻遮罩" : "Look-ahead mask");
    if (s->block == STAGE_BLOCK_SELF_ATTN && s->part == STAGE_DECODER) return z ? "遮罩自注意力" : "Masked self-attention";
    if (s->block == STAGE_BLOCK_FINAL_NORM && s->part == STAGE_ENCODER) return z ? "記憶（最後的正規化）" : "Memory (final norm)";
    return boxes[s->block][z];
}

const StageInfo *stage_kv_cache(int which) { return stage_find(which ? "dec.self_attn.v" : "dec.self_attn.k"); }

int stage_group(StageGroup g, const StageInfo **out, int max) {
    int n = 0;
    if (g == STAGE_GROUP_NONE) return 0;
    for (int at = 0; at < max; at++)
        for (int i = 0; i < N_STAGES; i++)
            if (stages[i].group == g && stages[i].group_index == at) out[n++] = &stages[i];
    return n;
}
