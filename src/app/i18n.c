#include "i18n.h"

static const char *const strings[LANG_COUNT][S_COUNT] = {
    [LANG_EN] = {
        [S_STEP] = "Step %d of %d",
        [S_LAYER] = "layer",
        [S_HEAD] = "head",
        [S_DECODING_STEP] = "decoding step",
        [S_ALL_HEADS] = "all heads",
        [S_SHAPE] = "shape",
        [S_SOURCE] = "Source",
        [S_HELP_TITLE] = "Keyboard shortcuts",
        [S_HELP_KEYS] = "\xE2\x86\x92 / \xE2\x86\x90\tnext / previous step\n"
                        "Shift + \xE2\x86\x92 / \xE2\x86\x90\tnext / previous stage\n"
                        "Home / End\tfirst / last step\n"
                        "Space\tplay / pause\n"
                        "[ / ]\tslower / faster\n"
                        "Page Up / Page Down\tprevious / next layer\n"
                        "1 \xE2\x80\xA6 9\tshow that head\n"
                        "Ctrl + L\ttype a sentence (Enter runs it, Esc leaves)\n"
                        "Ctrl + S\tsave this view as PNG (and its numbers as CSV)\n"
                        "Ctrl + Shift + S\tsave the whole window as PNG\n"
                        "Ctrl + + / \xE2\x88\x92 / 0\tlarger / smaller / normal size\n"
                        "F11\tfull screen\n"
                        "T\tlight / dark theme\n"
                        "C\tnext colour map\n"
                        "M\tmask, scores, masked scores, weights side by side (on / off)\n"
                        "G\tall heads of the layer and their average\n"
                        "V\tattention as lines between the words\n"
                        "A\tgold alignment over cross-attention (on / off)\n"
                        "F2\tEnglish / \xE4\xB8\xAD\xE6\x96\x87\n"
                        "?\tshow / hide this help\n"
                        "Ctrl + Q\tquit",
        [S_SAVED] = "Saved %s",
        [S_TYPE_SENTENCE] = "Type an English sentence and press Enter",
        [S_UNKNOWN_WORDS] = "Not in the vocabulary, read as <unk>:%s",
        [S_PLAYING] = "playing",
        [S_ENCODER] = "encoder",
        [S_DECODER] = "decoder",
        [S_TEACHER_FORCING] = "teacher forcing",
        [S_V_MASK] = "look-ahead mask",
        [S_V_RAW_SCORES] = "raw scores",
        [S_V_MASKED_SCORES] = "masked scores",
        [S_V_SOFTMAX_WEIGHTS] = "softmax weights",
        [S_V_MASK_NOTE] = "scores and weights of layer %d, head %d",
        [S_V_HEAD_N] = "head %d",
        [S_V_AVERAGE] = "average",
        [S_V_LINE_NOTE] = "line width \xE2\x88\x9D weight; under %.2f not drawn",
        [S_V_GOLD] = "gold alignment (%s, line %d)",
        [S_V_KEYS] = "keys",
        [S_V_QUERIES] = "queries",
        [S_V_SOURCE] = "source",
        [S_V_PRODUCES] = "produces",
        [S_V_CHOICE_SAMPLED] = "P = %.3f, random draw u = %.3f",
        [S_V_CHOICE_GREEDY] = "P = %.3f (the largest)",
        [S_V_BEAM_HYPOTHESIS] = "hypothesis + next token",
        [S_V_BEAM_LOGP] = "log P",
        [S_V_BEAM_SCORE] = "score",
        [S_V_BEAM_KEPT] = "kept",
        [S_V_BEAM_PRUNED] = "pruned",
        [S_V_BEAM_DONE] = "(done)",
        [S_V_BEAM_TREE] = "beam tree, width %d: token and score (sum of log P)",
        [S_V_BEAM_PATH] = "the output",
    },
    [LANG_ZH_TW] = {
        [S_STEP] = "第 %d 步，共 %d 步",
        [S_LAYER] = "層",
        [S_HEAD] = "頭",
        [S_DECODING_STEP] = "解碼步驟",
        [S_ALL_HEADS] = "所有注意力頭",
        [S_SHAPE] = "形狀",
        [S_SOURCE] = "原文",
        [S_HELP_TITLE] = "鍵盤快速鍵",
        [S_HELP_KEYS] = "\xE2\x86\x92 / \xE2\x86\x90\t下一步／上一步\n"
                        "Shift + \xE2\x86\x92 / \xE2\x86\x90\t下一階段／上一階段\n"
                        "Home / End\t第一步／最後一步\n"
                        "空白鍵\t播放／暫停\n"
                        "[ / ]\t放慢／加快\n"
                        "Page Up / Page Down\t上一層／下一層\n"
                        "1 \xE2\x80\xA6 9\t顯示該注意力頭\n"
                        "Ctrl + L\t輸入句子（Enter 執行，Esc 離開）\n"
                        "Ctrl + S\t將此畫面存成 PNG（數值存成 CSV）\n"
                        "Ctrl + Shift + S\t將整個視窗存成 PNG\n"
                        "Ctrl + + / \xE2\x88\x92 / 0\t放大／縮小／原始大小\n"
                        "F11\t全螢幕\n"
                        "T\t淺色／深色主題\n"
                        "C\t下一個色彩對應\n"
                        "M\t遮罩、分數、遮罩後分數、權重並排（開／關）\n"
                        "G\t該層所有注意力頭及其平均\n"
                        "V\t以連線顯示注意力\n"
                        "A\t在交叉注意力上顯示參考對齊（開／關）\n"
                        "F2\tEnglish / 中文\n"
                        "?\t顯示／隱藏說明\n"
                        "Ctrl + Q\t結束",
        [S_SAVED] = "已儲存 %s",
        [S_TYPE_SENTENCE] = "輸入英文句子，按 Enter 執行",
        [S_UNKNOWN_WORDS] = "不在詞彙表中，以 <unk> 代替：%s",
        [S_PLAYING] = "播放中",
        [S_ENCODER] = "編碼器",
        [S_DECODER] = "解碼器",
        [S_TEACHER_FORCING] = "教師強制",
        [S_V_MASK] = "前瞻遮罩",
        [S_V_RAW_SCORES] = "原始分數",
        [S_V_MASKED_SCORES] = "遮罩後分數",
        [S_V_SOFTMAX_WEIGHTS] = "softmax 權重",
        [S_V_MASK_NOTE] = "第 %d 層、第 %d 個注意力頭的分數與權重",
        [S_V_HEAD_N] = "第 %d 頭",
        [S_V_AVERAGE] = "平均",
        [S_V_LINE_NOTE] = "線寬 \xE2\x88\x9D 權重；低於 %.2f 不畫",
        [S_V_GOLD] = "參考對齊（%s，第 %d 行）",
        [S_V_KEYS] = "鍵",
        [S_V_QUERIES] = "查詢",
        [S_V_SOURCE] = "原文",
        [S_V_PRODUCES] = "產生",
        [S_V_CHOICE_SAMPLED] = "P = %.3f，隨機抽樣 u = %.3f",
        [S_V_CHOICE_GREEDY] = "P = %.3f（最大者）",
        [S_V_BEAM_HYPOTHESIS] = "假設 + 下一個詞",
        [S_V_BEAM_LOGP] = "log P",
        [S_V_BEAM_SCORE] = "分數",
        [S_V_BEAM_KEPT] = "保留",
        [S_V_BEAM_PRUNED] = "剪除",
        [S_V_BEAM_DONE] = "（已結束）",
        [S_V_BEAM_TREE] = "束搜尋樹，寬度 %d：詞與分數（log P 之和）",
        [S_V_BEAM_PATH] = "輸出",
    },
};

const char *i18n(Lang lang, StringId id) {
    const char *s = strings[lang][id];
    return s ? s : strings[LANG_EN][id];
}

const char *i18n_lang_name(Lang lang) { return lang == LANG_ZH_TW ? "繁體中文" : "English"; }
