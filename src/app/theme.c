#include "theme.h"

#include <math.h>

// Ten evenly spaced stops of each map (the published matplotlib colour maps),
// interpolated linearly in between.
static const Color stops[CMAP_COUNT][10] = {
    {0x440154, 0x482878, 0x3e4989, 0x31688e, 0x26828e, 0x1f9e89, 0x35b779, 0x6ece58, 0xb5de2b, 0xfde725},
    {0x00224e, 0x123570, 0x3b496c, 0x575d6d, 0x707173, 0x8a8678, 0xa59c74, 0xc3b369, 0xe1cc55, 0xfee838},
    {0x000004, 0x180f3d, 0x440f76, 0x721f81, 0x9e2f7f, 0xcd4071, 0xf1605d, 0xfd9668, 0xfeca8d, 0xfcfdbf},
    {0xffffff, 0xe6e6e6, 0xcccccc, 0xb3b3b3, 0x999999, 0x7f7f7f, 0x666666, 0x4c4c4c, 0x333333, 0x111111},
};

static const char *names[CMAP_COUNT] = {"viridis", "cividis", "magma", "greys"};

// n stops evenly spaced over t in [0, 1], interpolated linearly.
static Color interpolate(const Color *stop, int n, float t) {
    if (!(t >= 0.0f)) t = 0.0f;  // NaN too
    if (t > 1.0f) t = 1.0f;
    float f = t * (float)(n - 1);
    int i = (int)f;
    if (i >= n - 1) return 0xFF000000u | stop[n - 1];
    float u = f - (float)i;
    Color a = stop[i], b = stop[i + 1], out = 0xFF000000u;
    for (int s = 0; s <= 16; s += 8) {
        float ca = (float)((a >> s) & 255), cb = (float)((b >> s) & 255);
        out |= (Color)lroundf(ca + (cb - ca) * u) << s;
    }
    return out;
}

Color cmap_color(Colormap m, float t) { return interpolate(stops[m], 10, t); }

Color cmap_diverging(float t) {
    static const Color puor[11] = {0x2d004b, 0x542788, 0x8073ac, 0xb2abd2, 0xd8daeb, 0xf7f7f7,
                                   0xfee0b6, 0xfdb863, 0xe08214, 0xb35806, 0x7f3b08};
    return interpolate(puor, 11, t);
}

const char *cmap_name(Colormap m) { return names[m]; }

static const Theme light = {
    .dark = false, .background = 0xFFF7F7F4, .panel = 0xFFFFFFFF, .panel_edge = 0xFFD0D0CC,
    .text = 0xFF1E1E1E, .text_dim = 0xFF6A6A66, .accent = 0xFF1565C0, .accent_text = 0xFFFFFFFF,
    .masked = 0xFFBDBDBD, .grid = 0xFFE0E0DC, .hover = 0xFFFF6F00, .chosen = 0xFFD84315, .gold = 0xFFE65100,
};

static const Theme dark = {
    .dark = true, .background = 0xFF1B1D21, .panel = 0xFF25282D, .panel_edge = 0xFF3A3E45,
    .text = 0xFFECECEC, .text_dim = 0xFFA0A4AA, .accent = 0xFF64B5F6, .accent_text = 0xFF0D1117,
    .masked = 0xFF4A4D52, .grid = 0xFF33363B, .hover = 0xFFFFB74D, .chosen = 0xFFFF8A65, .gold = 0xFFFFB74D,
};

const Theme *theme_get(bool is_dark) { return is_dark ? &dark : &light; }

Color theme_text_on(Color c) {
    // relative luminance, roughly: light backgrounds get black text
    float l = 0.2126f * (float)((c >> 16) & 255) + 0.7152f * (float)((c >> 8) & 255) + 0.0722f * (float)(c & 255);
    return l > 140.0f ? 0xFF000000u : 0xFFFFFFFFu;
}
