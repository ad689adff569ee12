#include "i18n.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static const char *const strings[LANG_COUNT][S_COUNT] = {
    [LANG_EN] = {
        [S_HEAD] = "head %d",
        [S_DECODING_STEP] = "step %d",
        [S_PRODUCING] = "producing %s",
        [S_PLACE_DECODING] = "Decoding step %d of %d",
        [S_PLACE_OF] = "%d / %d",
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
                        "Tab, or \xE2\x86\x93 \xE2\x86\x91 + Enter\ttake the suggested word (while typing)\n"
                        "Ctrl + Page Down / Up\tnext / previous sentence of the list (--sentences)\n"
                        "Alt + \xE2\x86\x92 / \xE2\x86\x90\tnext / previous sentence of the list\n"
                        "D or Ctrl + ,\tsettings: model, decoding and its parameters\n"
                        "Ctrl + S\tsave this view as PNG (and its numbers as CSV)\n"
                        "Ctrl + Shift + S\tsave the whole window as PNG\n"
                        "Ctrl + + / \xE2\x88\x92 / 0\tlarger / smaller / normal size\n"
                        "F11\tfull screen\n"
                        "T\tlight / dark theme\n"
                        "C\tnext colour map (signed values: purple \xE2\x80\x93 white \xE2\x80\x93 orange around 0)\n"
                        "Shift + C\tone colour scale for every head of the layer and every step (on / off)\n"
                        "M\tmask, scores, masked scores, weights side by side (on / off)\n"
                        "G\tall heads of the layer and their average\n"
                        "V\tattention as lines between the words\n"
                        "A\tgold alignment over cross-attention (on / off)\n"
                        "K\tKV cache: a decoder stage beside its step before (on K or V: every layer's cache)\n"
                        "M G V A K\talso buttons beside the heads (H1 \xE2\x80\xA6)\n"
                        "X / Shift + X\tsilence the head shown, or its sub-layer / silence nothing (Alt + click: a head)\n"
                        "E\tthe experiment page: before and after silencing, each head silenced alone\n"
                        "B\tthis step beside the same step of another model (the untrained twin, or --compare)\n"
                        "H\tthe training history: this step at each snapshot of training, and the loss curve\n"
                        "F2\tEnglish / \xE4\xB8\xAD\xE6\x96\x87\n"
                        "?\tshow / hide this help\n"
                        "P\tthe map of the model: full, small, hidden (a click on it goes there)\n"
                        "Shift + P\tpresenter view: the step takes the window (the map hidden, the narration folded) / back\n"
                        "O\tlessons: the picker\n"
                        "In a lesson: \xE2\x86\x92 / \xE2\x86\x90\tnext / previous lesson step\n"
                        "In a lesson: 1 \xE2\x80\xA6 6, Enter\tpick a choice, reveal the answer\n"
                        "In a lesson: Esc\texplore freely; Esc again: back to the lesson\n"
                        "In a lesson: R\tback to the lesson's own sentence\n"
                        "In a lesson: N, \xE2\x86\x91 \xE2\x86\x93\tfold the narration away / back; scroll it\n"
                        "Ctrl + Q\tquit",
        [S_HELP_WEB_KEYS] = "In a web page: Alt + L\ttype a sentence (the browser keeps Ctrl + L)\n"
                            "In a web page: Alt + Page Down / Up\tnext / previous sentence of the list\n"
                            "In a web page: Alt + Enter\tfull screen (the browser keeps F11)\n"
                            "In a web page: Alt + O, or drop a file\topen a lesson (.lesson) or a sentence list",
        [S_SAVED] = "Saved %s",
        [S_CMAP] = "Colour map: %s (C: the next one); signed values: purple \xE2\x80\x93 white at 0 \xE2\x80\x93 orange",
        [S_ZOOMED] = "Zoom %d%%: the wheel pans the view (Shift+wheel: across); Ctrl+0: normal size",
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
        [S_V_AVERAGE] = "mean",
        [S_V_LINE_NOTE] = "line width \xE2\x88\x9D weight; under %.2f not drawn",
        [S_V_GOLD] = "gold alignment (%s, line %d)",
        [S_V_KEYS] = "keys",
        [S_V_QUERIES] = "queries",
        [S_V_SOURCE] = "source",
        [S_V_PRODUCES] = "produces",
        [S_HOVER] = "row %d %s \xE2\x86\x92 column %d %s: %.6g   (row sum %.6g)",
        [S_NO_KNOWN_WORD] = "No word of this sentence is in the model's vocabulary; nothing to translate",
        [S_TOO_LONG] = "The sentence has %d tokens; this model takes at most %d",
        [S_PASTE_CUT] = "The text box holds at most %d bytes; the rest of the pasted text was left out",
        [S_TOO_SMALL] = "The window is too small to show the steps. Make it larger, or press Ctrl + \xE2\x88\x92 for smaller type.",
        [S_SW_GRID] = "all heads (G)",
        [S_SW_LINES] = "lines (V)",
        [S_SW_SIDE_BY_SIDE] = "mask steps (M)",
        [S_SW_GOLD] = "gold (A)",
        [S_SW_KV_CACHE] = "KV cache (K)",
        [S_V_KV_CACHED] = "step %d (in the cache)",
        [S_V_KV_STEP] = "step %d",
        [S_V_KV_LAYER_K] = "layer %d \xC2\xB7 K",
        [S_V_KV_LAYER_V] = "layer %d \xC2\xB7 V",
        [S_V_KV_KEPT] = "Rows 1 to %d are step %d's, bit for bit: a decoder keeps them. Row %d (outlined) is the only one computed.",
        [S_V_KV_CHANGED] = "%d of %d earlier rows changed (outlined): rows that change cannot be kept from the step before.",
        [S_V_KV_ALL] = "Every row is step %d's, bit for bit: a decoder computes these once, at step 1, and keeps them.",
        [S_V_KV_LAYERS] = "The cache a decoder keeps: each layer's K and V of head %d, one row more a step (outlined: the new one).",
        [S_V_KV_COST] = "Multiply-adds for this translation: %s with a KV cache, %s without (%.1f\xC3\x97); the paper's base model, same lengths: %s and %s (%.1f\xC3\x97)",
        [S_V_CHOICE_SAMPLED] = "P = %.3f, random draw u = %.3f",
        [S_V_CHOICE_GREEDY] = "P = %.3f (the largest)",
        [S_V_RANK] = "%s (rank %d)",
        [S_V_REMOVED] = "%d tokens removed by top-k / top-p: P = 0, never drawn",
        [S_V_REMOVED_SPECIAL] = "%d tokens removed by top-k / top-p, and %s %s %s: P = 0, never drawn",
        [S_V_SPECIAL] = "%s %s %s: P = 0, never drawn",
        [S_V_DRAW_STRIP] = "the draw u = %.3f falls in the share of %s (the tokens laid end to end, in the order of the bars)",
        [S_V_BEAM_HYPOTHESIS] = "hypothesis + next token",
        [S_V_BEAM_LOGP] = "log P",
        [S_V_BEAM_SCORE] = "score",
        [S_V_BEAM_KEPT] = "kept",
        [S_V_BEAM_PRUNED] = "pruned",
        [S_V_BEAM_DONE] = "(done)",
        [S_V_BEAM_MORE] = "… %d more (%d kept)",
        [S_V_BEAM_TREE] = "beam tree, width %d: token and score (sum of log P)",
        [S_V_BEAM_PATH] = "the output",
        [S_V_NO_SUCH_STEP] = "This model has no such step (fewer layers or heads).",
        [S_V_FORCED_INSTEAD] = "a decoding step's choice is not in a teacher-forced pass: the last layer's cross-attention instead",
        [S_V_NO_MEMORY] = "Not enough memory to draw this view.",
        [S_UNKNOWN_TYPING] = "Not in the model's vocabulary (underlined):%s",
        [S_SUGGEST_HINT] = "Tab or \xE2\x86\x93 \xE2\x86\x91 + Enter: take the word \xC2\xB7 Esc: close",
        [S_NO_LIST] = "No sentence list: start the program with --sentences FILE (one sentence a line)",
        [S_LIST_FIRST] = "This is the first sentence of the list",
        [S_LIST_LAST] = "This is the last sentence of the list",
        [S_LIST_CANNOT_RUN] = "Sentence %d of %d (line %d) cannot run, the previous trace stays: %s",
        [S_SETTINGS] = "Settings",
        [S_SETTINGS_BUTTON] = "Settings (D)",
        [S_SETTINGS_HINT] = "\xE2\x86\x91 \xE2\x86\x93 choose \xC2\xB7 \xE2\x86\x90 \xE2\x86\x92 change \xC2\xB7 D or Esc closes",
        [S_MODEL] = "Model",
        [S_DECODING] = "Decoding",
        [S_GREEDY] = "greedy",
        [S_BEAM] = "beam search",
        [S_SAMPLING] = "sampling",
        [S_BEAM_WIDTH] = "Beam width",
        [S_TEMPERATURE] = "Temperature",
        [S_TOP_K] = "Top-k",
        [S_TOP_P] = "Top-p",
        [S_SEED] = "Seed",
        [S_MAX_STEPS] = "Most output tokens",
        [S_SPECIAL] = "<pad> <bos> <unk>",
        [S_SPECIAL_EXCLUDED] = "never chosen",
        [S_SPECIAL_ALLOWED] = "may be chosen",
        [S_EXPORT_SCALE] = "Ctrl+S picture scale",
        [S_LOOK_AHEAD_MASK] = "Look-ahead mask",
        [S_ON] = "on",
        [S_OFF] = "off (an experiment)",
        [S_NO_MASK_MARK] = "EXPERIMENT: no look-ahead mask",
        [S_SILENCED_MARK] = "EXPERIMENT: silenced %s",
        [S_SILENCED_COUNT] = "EXPERIMENT: silenced parts: %d",
        [S_NO_MASK_SHORT] = "EXPERIMENT: no mask",
        [S_TW_TITLE] = "Two models, one sentence, both teacher-forced on: %s",
        [S_TW_TITLE_OWN] = "Two models, one sentence, each teacher-forced on its own output (their target vocabularies differ): %s",
        [S_TW_TITLE_NONE] = "Two models side by side",
        [S_TW_NO_OTHER] = "There is no second model to compare with: start the window with --compare FILE, a model that reads the same source vocabulary (the shipped en-zh has its untrained twin en-zh-random beside it). B closes this page.",
        [S_TW_OUTPUT] = "its own output: %s",
        [S_TW_LOSS] = "mean loss on that target: %.3f",
        [S_HIST_TITLE] = "Training history of %s: step %d of %d (snapshot %d of %d)",
        [S_HIST_TITLE_NONE] = "Training history",
        [S_HIST_NOTHING] = "(nothing: it chooses <eos> first)",
        [S_HIST_FETCHING] = "Downloading the model's training history: %d %%. Only the first time: the page keeps it for use offline.",
        [S_HIST_FETCH_FAILED] = "The training history could not be downloaded (%s: %s). The page needs the network the first time it shows one: H twice (closed and opened) tries again.",
        [S_HIST_NO_CONNECTION] = "no connection",
        [S_HIST_LOSS] = "mean loss on the target, %s: %.3f",
        [S_HIST_CURVE] = "training loss (smoothed), from the first step to the last; the red line: this snapshot",
        [S_HIST_HINT] = "\xE2\x86\x90 \xE2\x86\x92 snapshots \xC2\xB7 Space plays them \xC2\xB7 a click on a step or the curve chooses \xC2\xB7 H closes",
        [S_XP_TITLE] = "Silenced: %s",
        [S_XP_NONE] = "Nothing is silenced: X silences the head shown (or its sub-layer), Alt+click a head chip",
        [S_XP_BEFORE] = "Without silencing",
        [S_XP_AFTER] = "Silenced",
        [S_XP_OUTPUT] = "output",
        [S_XP_LOSS_AER] = "teacher-forced mean loss %.3f  \xC2\xB7  AER %s",
        [S_XP_TARGET] = "target",
        [S_XP_CHOSEN] = "most likely",
        [S_XP_LOSS] = "loss",
        [S_XP_EACH_HEAD] = "Each head silenced alone: change of the mean loss (%.3f with none)",
        [S_XP_HINT] = "X silences the head shown \xC2\xB7 Shift+X silences nothing \xC2\xB7 Alt+click a head chip \xC2\xB7 E closes",
        [S_XP_FULL] = "At most 32 parts can be silenced at once",
        [S_XP_DROPPED] = "; this model has no %s: no longer silenced",
        [S_ALL] = "all",
        [S_MODEL_MAX] = "the model's %d",
        [S_MODEL_FAILED] = "Could not use that model; the current one stays: %s",
        [S_MODEL_LOADED] = "Model: %s",
        [S_DECODE_FAILED] = "Could not run with these settings; the previous ones stay: %s",
        [S_TARGET] = "target: %s",
        [S_L_STEP] = "Lesson step %d of %d",
        [S_L_FIRST] = "This is the lesson's first step",
        [S_L_LAST] = "This is the lesson's last step (O: another lesson, Esc: explore freely)",
        [S_L_NOT_APPLY] = "This step does not apply to this sentence: %s",
        [S_L_OWN_SENTENCE] = "The narration describes “%s”; the view shows your sentence. R: back to the lesson's.",
        [S_L_QUESTION] = "Question",
        [S_L_REVEAL_HINT] = "Enter: reveal the answer",
        [S_L_ANSWER] = "Answer",
        [S_L_RIGHT] = "Right!",
        [S_L_WRONG] = "Not this one.",
        [S_L_KEYS] = "← → steps · Enter reveals · Esc explores · O lessons · N narration",
        [S_L_NARRATION] = "narration (N)",
        [S_L_SCROLL_MORE] = "↓ more (↑ ↓ scroll)",
        [S_L_SCROLL_ABOVE] = "↑ more above",
        [S_L_EXPLORING] = "Exploring freely: every key works as usual. Esc goes back to the lesson (step %d).",
        [S_L_PROBLEMS] = "This lesson has problems and cannot run:",
        [S_L_PROBLEMS_HINT] = "Its sentence is open to explore freely. Esc closes this; O opens another lesson.",
        [S_L_PICKER_TITLE] = "Lessons",
        [S_L_PICKER_HINT] = "↑ ↓ choose · Enter opens · Esc: explore freely · F2: 中文",
        [S_L_STEPS] = "%d steps",
        [S_L_MORE_ABOVE] = "▲ %d more above",
        [S_L_MORE_BELOW] = "▼ %d more below",
        [S_L_BROKEN] = "has problems (see transformer-tracer lint)",
        [S_L_NONE] = "No lessons in %s",
        [S_L_SHAPE_HIDDEN] = "shown with the answer",
        [S_CHOICE_HOLDS] = "holds: the chosen id, its probability P, the draw u (\xE2\x88\x92" "1 if none)",
        [S_CHOICE_WORDS_GREEDY] = "Step %d chooses %s: the most likely of the %d tokens.",
        [S_CHOICE_WORDS_SAMPLED] = "Step %d draws %s: u fell in its share of the probabilities.",
        [S_L_QUESTION_NOT_HERE] = "This question is about the lesson's sentence: it does not apply to yours (R: back to the lesson's).",
        [S_PRESENTER_ON] = "Presenter view: the step takes the window, the map hidden and the narration folded (Shift+P: back)",
        [S_PRESENTER_OFF] = "The map and the narration as they were (Shift+P: the presenter view)",
        [S_SHARED_SCALE_ON] = "One colour scale for every head of the layer and every decoding step (Shift+C: each matrix its own)",
        [S_SHARED_SCALE_OFF] = "Each matrix its own colour scale (Shift+C: one for every head of the layer and every step)",
        [S_MAP_ENCODER] = "Encoder",
        [S_MAP_DECODER] = "Decoder",
        [S_MAP_LAYER] = "Layer %d",
        [S_MAP_STEP] = "step %d of %d",
        [S_MAP_SHOWN] = "The map of the model: P makes it small",
        [S_MAP_SMALL] = "The map of the model, small: P hides it",
        [S_MAP_HIDDEN] = "The map of the model is hidden: P shows it",
    },
    [LANG_ZH_TW] = {
        [S_HEAD] = "第 %d 頭",
        [S_DECODING_STEP] = "第 %d 步",
        [S_PRODUCING] = "產生「%s」",
        [S_PLACE_DECODING] = "解碼第 %d 步，共 %d 步",
        [S_PLACE_OF] = "%d / %d",
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
                        "Tab，或 \xE2\x86\x93 \xE2\x86\x91 + Enter\t選用建議的詞元（輸入時）\n"
                        "Ctrl + Page Down / Up\t清單的下一句／上一句（--sentences）\n"
                        "Alt + \xE2\x86\x92 / \xE2\x86\x90\t清單的下一句／上一句\n"
                        "D 或 Ctrl + ,\t設定：模型、解碼方式及其參數\n"
                        "Ctrl + S\t將此畫面存成 PNG（數值存成 CSV）\n"
                        "Ctrl + Shift + S\t將整個視窗存成 PNG\n"
                        "Ctrl + + / \xE2\x88\x92 / 0\t放大／縮小／原始大小\n"
                        "F11\t全螢幕\n"
                        "T\t淺色／深色主題\n"
                        "C\t下一個色彩對應（有正負的數值：以 0 為中心，紫－白－橙）\n"
                        "Shift + C\t同一層的每個頭、每一步共用一個色彩尺度（開／關）\n"
                        "M\t遮罩、分數、遮罩後分數、權重並排（開／關）\n"
                        "G\t該層所有注意力頭及其平均\n"
                        "V\t以連線顯示注意力\n"
                        "A\t在交叉注意力上顯示參考對齊（開／關）\n"
                        "K\tKV 快取：解碼器的某一步與前一步並排（在 K 或 V 上：每一層的快取）\n"
                        "M G V A K\t也可按注意力頭（H1 \xE2\x80\xA6）旁的按鈕\n"
                        "X / Shift + X\t靜音目前的頭或它的子層／全部取消（Alt + 點選：某個頭）\n"
                        "E\t實驗頁：靜音前後對照，每次只靜音一個頭\n"
                        "B\t這一步與另一個模型的同一步並排（未訓練的雙胞胎，或 --compare）\n"
                        "H\t訓練歷程：這一步在訓練各個快照時的樣子，以及損失曲線\n"
                        "F2\tEnglish / 中文\n"
                        "?\t顯示／隱藏說明\n"
                        "P\t模型架構圖：完整、縮小、隱藏（點一下就跳到那裡）\n"
                        "Shift + P\t簡報模式：步驟佔滿視窗（架構圖隱藏、說明收合）／還原\n"
                        "O\t單元：選擇單元\n"
                        "單元中：\xE2\x86\x92 / \xE2\x86\x90\t下一個／上一個單元步驟\n"
                        "單元中：1 \xE2\x80\xA6 6、Enter\t選擇答案、揭曉答案\n"
                        "單元中：Esc\t自由探索；再按 Esc 回到單元\n"
                        "單元中：R\t回到單元原本的句子\n"
                        "單元中：N、\xE2\x86\x91 \xE2\x86\x93\t收起 / 展開說明欄；捲動說明\n"
                        "Ctrl + Q\t結束",
        [S_HELP_WEB_KEYS] = "網頁中：Alt + L\t輸入句子（Ctrl + L 由瀏覽器使用）\n"
                            "網頁中：Alt + Page Down / Up\t清單的下一句／上一句\n"
                            "網頁中：Alt + Enter\t全螢幕（F11 由瀏覽器使用）\n"
                            "網頁中：Alt + O，或拖放檔案\t開啟課程（.lesson）或句子清單",
        [S_SAVED] = "已儲存 %s",
        [S_CMAP] = "色彩對應：%s（C：下一個）；有正負的數值：紫色－0 為白色－橙色",
        [S_ZOOMED] = "縮放 %d%%：滾輪移動檢視（Shift+滾輪：左右）；Ctrl+0：正常大小",
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
        [S_V_MASK_NOTE] = "第 %d 層・第 %d 頭的分數與權重",
        [S_V_HEAD_N] = "第 %d 頭",
        [S_V_AVERAGE] = "平均",
        [S_V_LINE_NOTE] = "線寬 \xE2\x88\x9D 權重；低於 %.2f 不畫",
        [S_V_GOLD] = "參考對齊（%s，第 %d 行）",
        [S_V_KEYS] = "鍵",
        [S_V_QUERIES] = "查詢",
        [S_V_SOURCE] = "原文",
        [S_V_PRODUCES] = "產生",
        [S_HOVER] = "第 %d 列 %s \xE2\x86\x92 第 %d 欄 %s：%.6g（此列總和 %.6g）",
        [S_NO_KNOWN_WORD] = "這個句子沒有任何一個詞元在模型的詞彙表中，無法翻譯",
        [S_TOO_LONG] = "這個句子有 %d 個詞元；這個模型最多只能處理 %d 個",
        [S_PASTE_CUT] = "文字框最多容納 %d 位元組；貼上的其餘文字已略去",
        [S_TOO_SMALL] = "視窗太小，無法顯示各步驟。請把視窗放大，或按 Ctrl + \xE2\x88\x92 縮小字體。",
        [S_SW_GRID] = "所有頭 (G)",
        [S_SW_LINES] = "連線 (V)",
        [S_SW_SIDE_BY_SIDE] = "遮罩步驟 (M)",
        [S_SW_GOLD] = "參考對齊 (A)",
        [S_SW_KV_CACHE] = "KV 快取 (K)",
        [S_V_KV_CACHED] = "第 %d 步（已在快取中）",
        [S_V_KV_STEP] = "第 %d 步",
        [S_V_KV_LAYER_K] = "第 %d 層・K",
        [S_V_KV_LAYER_V] = "第 %d 層・V",
        [S_V_KV_KEPT] = "第 1 到 %d 列與第 %d 步的完全相同（逐位元相等）：解碼器保留它們。只有第 %d 列（框起來的）需要重新計算。",
        [S_V_KV_CHANGED] = "之前的列中有 %d 列（共 %d 列）改變了（框起來的）：會改變的列無法沿用上一步的結果。",
        [S_V_KV_ALL] = "每一列都與第 %d 步的完全相同（逐位元相等）：解碼器只在第 1 步計算一次，之後一直保留。",
        [S_V_KV_LAYERS] = "解碼器保留的快取：每一層第 %d 頭的 K 與 V，每一步多一列（框起來的是新的一列）。",
        [S_V_KV_COST] = "整句翻譯的乘加次數：用 KV 快取 %s，不用 %s（%.1f 倍）；論文的基礎模型、同樣長度：%s 與 %s（%.1f 倍）",
        [S_V_CHOICE_SAMPLED] = "P = %.3f，隨機抽樣 u = %.3f",
        [S_V_CHOICE_GREEDY] = "P = %.3f（最大者）",
        [S_V_RANK] = "%s（第 %d 名）",
        [S_V_REMOVED] = "top-k／top-p 移除了 %d 個詞元：P = 0，不會被抽到",
        [S_V_REMOVED_SPECIAL] = "top-k／top-p 移除了 %d 個詞元，加上 %s %s %s：P = 0，不會被抽到",
        [S_V_SPECIAL] = "%s %s %s：P = 0，不會被抽到",
        [S_V_DRAW_STRIP] = "隨機抽樣 u = %.3f 落在「%s」的區段（各詞元依長條的順序首尾相接）",
        [S_V_BEAM_HYPOTHESIS] = "假設 + 下一個詞元",
        [S_V_BEAM_LOGP] = "log P",
        [S_V_BEAM_SCORE] = "分數",
        [S_V_BEAM_KEPT] = "保留",
        [S_V_BEAM_PRUNED] = "剪除",
        [S_V_BEAM_DONE] = "（已結束）",
        [S_V_BEAM_MORE] = "… 還有 %d 個（其中 %d 個保留）",
        [S_V_BEAM_TREE] = "集束搜尋樹，寬度 %d：詞元與分數（log P 之和）",
        [S_V_BEAM_PATH] = "輸出",
        [S_V_NO_SUCH_STEP] = "這個模型沒有這一步（層數或頭數較少）。",
        [S_V_FORCED_INSTEAD] = "教師強制的一次計算中沒有解碼步驟的選擇：改為顯示最後一層的交叉注意力",
        [S_V_NO_MEMORY] = "記憶體不足，無法繪製此檢視。",
        [S_UNKNOWN_TYPING] = "模型詞彙表中沒有（已加底線）：%s",
        [S_SUGGEST_HINT] = "Tab 或 \xE2\x86\x93 \xE2\x86\x91 + Enter：選用此詞元 \xC2\xB7 Esc：關閉",
        [S_NO_LIST] = "沒有句子清單：請以 --sentences 檔案 啟動程式（一行一句）",
        [S_LIST_FIRST] = "這是清單的第一句",
        [S_LIST_LAST] = "這是清單的最後一句",
        [S_LIST_CANNOT_RUN] = "第 %d 句（共 %d 句，第 %d 行）無法執行，仍顯示先前的追蹤：%s",
        [S_SETTINGS] = "設定",
        [S_SETTINGS_BUTTON] = "設定 (D)",
        [S_SETTINGS_HINT] = "\xE2\x86\x91 \xE2\x86\x93 選擇 \xC2\xB7 \xE2\x86\x90 \xE2\x86\x92 調整 \xC2\xB7 D 或 Esc 關閉",
        [S_MODEL] = "模型",
        [S_DECODING] = "解碼方式",
        [S_GREEDY] = "貪婪",
        [S_BEAM] = "集束搜尋",
        [S_SAMPLING] = "抽樣",
        [S_BEAM_WIDTH] = "束寬",
        [S_TEMPERATURE] = "溫度",
        [S_TOP_K] = "Top-k",
        [S_TOP_P] = "Top-p",
        [S_SEED] = "亂數種子",
        [S_MAX_STEPS] = "最多輸出詞元數",
        [S_SPECIAL] = "<pad> <bos> <unk>",
        [S_SPECIAL_EXCLUDED] = "不會被選出",
        [S_SPECIAL_ALLOWED] = "可以被選出",
        [S_EXPORT_SCALE] = "Ctrl+S 圖片倍率",
        [S_LOOK_AHEAD_MASK] = "前瞻遮罩",
        [S_ON] = "開",
        [S_OFF] = "關（實驗）",
        [S_NO_MASK_MARK] = "實驗：沒有前瞻遮罩",
        [S_SILENCED_MARK] = "實驗：靜音 %s",
        [S_SILENCED_COUNT] = "實驗：靜音部分：%d 個",
        [S_NO_MASK_SHORT] = "實驗：無遮罩",
        [S_TW_TITLE] = "兩個模型、同一個句子，都以教師強制輸入：%s",
        [S_TW_TITLE_OWN] = "兩個模型、同一個句子，各自以自己的輸出做教師強制（兩者的目標詞彙不同）：%s",
        [S_TW_TITLE_NONE] = "兩個模型並排",
        [S_TW_NO_OTHER] = "沒有可以比較的第二個模型：以 --compare FILE 開啟視窗，指定一個讀取相同原文詞彙的模型（隨附的 en-zh 旁邊有它未訓練的雙胞胎 en-zh-random）。按 B 關閉此頁。",
        [S_TW_OUTPUT] = "它自己的輸出：%s",
        [S_TW_LOSS] = "在這個目標上的平均損失：%.3f",
        [S_HIST_TITLE] = "%s 的訓練歷程：第 %d 步，共 %d 步（第 %d 個快照，共 %d 個）",
        [S_HIST_TITLE_NONE] = "訓練歷程",
        [S_HIST_NOTHING] = "（什麼也沒有：它第一個就選了 <eos>）",
        [S_HIST_FETCHING] = "正在下載這個模型的訓練歷程：%d %%。只有第一次需要：網頁會把它留著，離線也能用。",
        [S_HIST_FETCH_FAILED] = "無法下載訓練歷程（%s：%s）。網頁第一次顯示訓練歷程時需要連上網路：按兩次 H（關閉再打開）會重試。",
        [S_HIST_NO_CONNECTION] = "無法連線",
        [S_HIST_LOSS] = "在目標「%s」上的平均損失：%.3f",
        [S_HIST_CURVE] = "訓練損失（平滑後），從第一步到最後一步；紅線：這個快照",
        [S_HIST_HINT] = "\xE2\x86\x90 \xE2\x86\x92 快照 \xC2\xB7 空白鍵播放 \xC2\xB7 點選步數或曲線來選擇 \xC2\xB7 H 關閉",
        [S_XP_TITLE] = "靜音：%s",
        [S_XP_NONE] = "沒有靜音任何部分：按 X 靜音目前的頭（或它的子層），或按住 Alt 點選頭",
        [S_XP_BEFORE] = "未靜音",
        [S_XP_AFTER] = "靜音後",
        [S_XP_OUTPUT] = "輸出",
        [S_XP_LOSS_AER] = "教師強制平均損失 %.3f  \xC2\xB7  AER %s",
        [S_XP_TARGET] = "目標",
        [S_XP_CHOSEN] = "最可能",
        [S_XP_LOSS] = "損失",
        [S_XP_EACH_HEAD] = "每次只靜音一個頭：平均損失的變化（全不靜音時 %.3f）",
        [S_XP_HINT] = "X 靜音目前的頭 \xC2\xB7 Shift+X 取消全部 \xC2\xB7 Alt+點選頭 \xC2\xB7 E 關閉",
        [S_XP_FULL] = "最多只能同時靜音 32 個部分",
        [S_XP_DROPPED] = "；此模型沒有 %s，不再靜音",
        [S_ALL] = "全部",
        [S_MODEL_MAX] = "模型上限 %d",
        [S_MODEL_FAILED] = "無法使用該模型，保留目前的模型：%s",
        [S_MODEL_LOADED] = "模型：%s",
        [S_DECODE_FAILED] = "無法以這些設定執行，保留先前的設定：%s",
        [S_TARGET] = "目標：%s",
        [S_L_STEP] = "單元第 %d 步，共 %d 步",
        [S_L_FIRST] = "這是本單元的第一步",
        [S_L_LAST] = "這是本單元的最後一步（O：換一個單元，Esc：自由探索）",
        [S_L_NOT_APPLY] = "這一步不適用於這個句子：%s",
        [S_L_OWN_SENTENCE] = "說明寫的是「%s」；畫面上是你的句子。按 R 回到單元的句子。",
        [S_L_QUESTION] = "想一想",
        [S_L_REVEAL_HINT] = "Enter：揭曉答案",
        [S_L_ANSWER] = "答案",
        [S_L_RIGHT] = "答對了！",
        [S_L_WRONG] = "不是這一個。",
        [S_L_KEYS] = "← → 步驟 · Enter 揭曉 · Esc 自由探索 · O 單元 · N 說明欄",
        [S_L_NARRATION] = "說明欄（N）",
        [S_L_SCROLL_MORE] = "↓ 還有（↑ ↓ 捲動）",
        [S_L_SCROLL_ABOVE] = "↑ 上面還有",
        [S_L_EXPLORING] = "自由探索中：所有按鍵照常運作。按 Esc 回到單元（第 %d 步）。",
        [S_L_PROBLEMS] = "這個單元有問題，無法執行：",
        [S_L_PROBLEMS_HINT] = "仍可自由探索它的句子。按 Esc 關閉此說明；按 O 開啟其他單元。",
        [S_L_PICKER_TITLE] = "單元",
        [S_L_PICKER_HINT] = "↑ ↓ 選擇 · Enter 開啟 · Esc：自由探索 · F2：English",
        [S_L_STEPS] = "%d 步",
        [S_L_MORE_ABOVE] = "▲ 上面還有 %d 課",
        [S_L_MORE_BELOW] = "▼ 下面還有 %d 課",
        [S_L_BROKEN] = "有問題（請用 transformer-tracer lint 檢查）",
        [S_L_NONE] = "%s 裡沒有單元",
        [S_L_SHAPE_HIDDEN] = "揭曉答案時顯示",
        [S_CHOICE_HOLDS] = "內容：選出的詞元編號、機率 P、抽樣值 u（無抽樣為 \xE2\x88\x92" "1）",
        [S_CHOICE_WORDS_GREEDY] = "第 %d 步選出「%s」：%d 個詞元中機率最大的。",
        [S_CHOICE_WORDS_SAMPLED] = "第 %d 步抽到「%s」：u 落在它所佔的機率區間。",
        [S_L_QUESTION_NOT_HERE] = "這個問題問的是單元的句子，不適用於你的句子（按 R 回到單元的句子）。",
        [S_PRESENTER_ON] = "簡報模式：步驟佔滿視窗，架構圖隱藏、說明收合（Shift+P：還原）",
        [S_PRESENTER_OFF] = "架構圖與說明恢復原樣（Shift+P：簡報模式）",
        [S_SHARED_SCALE_ON] = "同一層的每個頭、每個解碼步驟共用一個色彩尺度（Shift+C：每個矩陣各用各的）",
        [S_SHARED_SCALE_OFF] = "每個矩陣各用自己的色彩尺度（Shift+C：同一層的每個頭、每一步共用一個）",
        [S_MAP_ENCODER] = "編碼器",
        [S_MAP_DECODER] = "解碼器",
        [S_MAP_LAYER] = "第 %d 層",
        [S_MAP_STEP] = "第 %d 步，共 %d 步",
        [S_MAP_SHOWN] = "模型架構圖：按 P 縮小",
        [S_MAP_SMALL] = "模型架構圖（縮小）：按 P 隱藏",
        [S_MAP_HIDDEN] = "模型架構圖已隱藏：按 P 顯示",
    },
};

const char *i18n(Lang lang, StringId id) {
    const char *s = strings[lang][id];
    return s ? s : strings[LANG_EN][id];
}

const char *i18n_lang_name(Lang lang) { return lang == LANG_ZH_TW ? "繁體中文" : "English"; }

// The formulas with words in them; the others are mathematics alone.
static const char *const formulas[][2] = {
    {"token ids of the source", "來源句的詞元編號"},
    {"token ids of the source, then <pad> up to the batch's length", "來源句的詞元編號，再補 <pad> 到批次的長度"},
    {"P[j] = 0 for a token, \xE2\x88\x92\xE2\x88\x9E for <pad>", "P[j] = 0（詞元）、\xE2\x88\x92\xE2\x88\x9E（<pad>）"},
    {"memory = LayerNorm(encoder stack output)", "memory = LayerNorm(編碼器堆疊的輸出)"},
    {"decoder input: <bos> + tokens so far (shifted right)", "解碼器輸入：<bos> + 目前為止的詞元（右移一位）"},
    {"M[i][j] = 0 if j \xE2\x89\xA4 i, \xE2\x88\x92\xE2\x88\x9E if j > i", "M[i][j] = 0（j \xE2\x89\xA4 i）、\xE2\x88\x92\xE2\x88\x9E（j > i）"},
    {"Q_h\xC2\xB7K_h\xE1\xB5\x80 / \xE2\x88\x9A" "d_k + M  (M = \xE2\x88\x92\xE2\x88\x9E above the diagonal)",
     "Q_h\xC2\xB7K_h\xE1\xB5\x80 / \xE2\x88\x9A" "d_k + M（對角線以上 M = \xE2\x88\x92\xE2\x88\x9E）"},
    {"Q_h\xC2\xB7K_h\xE1\xB5\x80 / \xE2\x88\x9A" "d_k + P  (P = \xE2\x88\x92\xE2\x88\x9E in the <pad> columns)",
     "Q_h\xC2\xB7K_h\xE1\xB5\x80 / \xE2\x88\x9A" "d_k + P（<pad> 欄裡 P = \xE2\x88\x92\xE2\x88\x9E）"},
    {"M[i][j] = 0: the look-ahead mask is off", "M[i][j] = 0：前瞻遮罩已關閉"},
    {"0: the sub-layer is silenced", "0：這個子層被靜音"},
    {"Concat(head_1, \xE2\x80\xA6, head_h), a silenced head's columns 0", "Concat(head_1, \xE2\x80\xA6, head_h)，被靜音的頭那幾欄為 0"},
    {"LayerNorm(decoder stack output)", "LayerNorm(解碼器堆疊的輸出)"},
    {"P(next token) = softmax(logits)", "P(下一個詞元) = softmax(logits)"},
    {"the k most likely next tokens", "最可能的 k 個下一個詞元"},
    {"softmax(logits / T), keep top-k and top-p, renormalise", "softmax(logits / T)，只留 top-k 與 top-p，再正規化"},
    {"next token = argmax P", "下一個詞元 = argmax P"},
    {"next token drawn from the filtered distribution", "下一個詞元從篩選後的分布中抽出"},
    {"score = \xCE\xA3 log P(token); keep the best k", "分數 = \xCE\xA3 log P(詞元)；保留最好的 k 個"},
    {"the output sentence", "輸出的句子"},
};

const char *i18n_formula(Lang lang, const char *formula) {
    if (lang != LANG_ZH_TW || !formula) return formula;
    for (size_t i = 0; i < sizeof formulas / sizeof formulas[0]; i++)
        if (!strcmp(formulas[i][0], formula)) return formulas[i][1];
    return formula;
}

const char *i18n_model_name(Lang lang, const char *name, char *buf, size_t size) {
    if (lang != LANG_ZH_TW || !name) return name ? name : "";
    // the words of the shipped models' names, longest first where one holds another
    static const char *const words[][2] = {
        {" (toy corpus)", "（玩具語料）"}, {", untrained", "，未訓練"}, {"zh-TW", "繁體中文"}, {"en", "英文"}, {"fr", "法文"},
    };
    size_t n = 0;
    buf[0] = '\0';
    for (const char *p = name; *p && n + 1 < size;) {
        size_t i = 0, len = 0;
        for (; i < sizeof words / sizeof *words; i++) {
            len = strlen(words[i][0]);
            // a language code only as a whole word: "en" in "en→", not in "often"
            bool edge = words[i][0][0] == ' ' || words[i][0][0] == ',' ||
                        ((p == name || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[len]) && p[len] != '-');
            if (!strncmp(p, words[i][0], len) && edge) break;
        }
        const char *put = i < sizeof words / sizeof *words ? words[i][1] : NULL;
        size_t step = put ? len : 1, m = put ? strlen(put) : 1;
        if (n + m >= size) break;
        memcpy(buf + n, put ? put : p, m);
        n += m;
        p += step;
    }
    buf[n] = '\0';
    return buf;
}

const char *i18n_mode_name(Lang lang, int mode) {
    static const StringId names[] = {S_GREEDY, S_BEAM, S_SAMPLING, S_TEACHER_FORCING};
    return mode >= 0 && mode < (int)(sizeof names / sizeof *names) ? i18n(lang, names[mode]) : "?";
}
