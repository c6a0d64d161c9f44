// The fixed-arity wrappers of parlor_vips.h over libvips (Debian's libvips-dev, 8.14).
#include <vips/vips.h>
#include "parlor_vips.h"

/// Starts libvips for Parlor: no operation cache (every upload is new; a cache only holds memory), every
/// loader blocked but JPEG, PNG, WebP and GIF, and no loader marked untrusted. 0 on success.
static void parlor_vips_quiet(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

int parlor_vips_start(void) {
    if (vips_init("parlor") != 0) return -1;
    // A damaged upload makes libvips warn on stderr for every tile; the caller gets the error anyway.
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, parlor_vips_quiet, NULL);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    // Parlor runs uploads side by side on its own workers: one thread each inside libvips.
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);
    // GIF is read by libnsgif in 8.14 ("VipsForeignLoadNsgif"); older builds name the class after giflib.
    vips_operation_block_set("VipsForeignLoadNsgif", FALSE);
    vips_operation_block_set("VipsForeignLoadGif", FALSE);
    return 0;
}

/// The last error libvips recorded on this thread, then forgotten.
const char *parlor_vips_error(void) { return vips_error_buffer(); }
void parlor_vips_error_clear(void) { vips_error_clear(); }

/// The header of `path` only (no pixel is decoded): its size, its pages (frames), and its loader's name.
/// NULL when no allowed loader reads it. Unref the answer.
VipsImage *parlor_vips_header(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int parlor_vips_width(VipsImage *image) { return vips_image_get_width(image); }
int parlor_vips_height(VipsImage *image) { return vips_image_get_height(image); }
int parlor_vips_pages(VipsImage *image) { return vips_image_get_n_pages(image); }
int parlor_vips_page_height(VipsImage *image) { return vips_image_get_page_height(image); }
int parlor_vips_bands(VipsImage *image) { return vips_image_get_bands(image); }
int parlor_vips_has(VipsImage *image, const char *name) { return vips_image_get_typeof(image, name) != 0; }
const char *parlor_vips_loader(VipsImage *image) {
    const char *loader = NULL;
    if (vips_image_get_string(image, VIPS_META_LOADER, &loader) != 0) return NULL;
    return loader;
}

/// `path` (all its frames when `all_pages`) shrunk to fit `width` x `height`, never enlarged, turned
/// upright by its EXIF orientation; cropped to fill the box when `crop`. A truncated file is an error.
int parlor_vips_thumbnail(const char *path, int all_pages, int width, int height, int crop, VipsImage **out) {
    // Loading is lazy: a file cut short fails when the pixels are written, not here.
    char *name = g_strdup_printf("%s%s", path, all_pages ? "[n=-1]" : "");
    int result = vips_thumbnail(name, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
                                "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    g_free(name);
    return result;
}

/// Encodes without any metadata (no EXIF, no XMP, no ICC): nothing like GPS leaves the server. libvips
/// 8.14's WebP saver writes EXIF even so; VipsImageService cuts it from the container (WebPMetadata).
int parlor_vips_webp(VipsImage *image, int quality, void **bytes, size_t *length) {
    return vips_webpsave_buffer(image, bytes, length, "Q", quality, "strip", TRUE, NULL);
}
int parlor_vips_jpeg(VipsImage *image, int quality, void **bytes, size_t *length) {
    return vips_jpegsave_buffer(image, bytes, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}
int parlor_vips_png(VipsImage *image, void **bytes, size_t *length) {
    return vips_pngsave_buffer(image, bytes, length, "strip", TRUE, NULL);
}
int parlor_vips_gif(VipsImage *image, void **bytes, size_t *length) {
    return vips_gifsave_buffer(image, bytes, length, "strip", TRUE, NULL);
}

// For tests, which make their own files.

/// An 8-bit image of `bands` bands from packed pixels.
VipsImage *parlor_vips_from_pixels(const void *pixels, size_t size, int width, int height, int bands) {
    return vips_image_new_from_memory_copy(pixels, size, width, height, bands, VIPS_FORMAT_UCHAR);
}
/// Decodes encoded bytes (any allowed format).
VipsImage *parlor_vips_from_bytes(const void *bytes, size_t length) {
    return vips_image_new_from_buffer(bytes, length, "", NULL);
}
/// Encodes keeping the metadata it has (an EXIF orientation, say).
int parlor_vips_jpeg_keeping(VipsImage *image, void **bytes, size_t *length) {
    return vips_jpegsave_buffer(image, bytes, length, "Q", 95, NULL);
}
int parlor_vips_jpeg_progressive(VipsImage *image, void **bytes, size_t *length) {
    return vips_jpegsave_buffer(image, bytes, length, "Q", 90, "interlace", TRUE, NULL);
}
int parlor_vips_orientation(VipsImage *image) {
    int orientation = 0;
    // Asked first, so a picture without the field leaves nothing in libvips's error buffer.
    if (!vips_image_get_typeof(image, VIPS_META_ORIENTATION)) return 0;
    if (vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation) != 0) return 0;
    return orientation;
}
void parlor_vips_set_orientation(VipsImage *image, int orientation) {
    vips_image_set_int(image, VIPS_META_ORIENTATION, orientation);
}
/// Frames of `height` pixels stacked in one tall image, to be saved as an animation.
void parlor_vips_set_pages(VipsImage *image, int page_height, int delay_ms) {
    vips_image_set_int(image, VIPS_META_PAGE_HEIGHT, page_height);
    int pages = vips_image_get_height(image) / page_height;
    int *delays = g_new(int, pages);
    for (int i = 0; i < pages; i++) delays[i] = delay_ms;
    vips_image_set_array_int(image, "delay", delays, pages);
    g_free(delays);
}
int parlor_vips_gif_keeping(VipsImage *image, void **bytes, size_t *length) {
    return vips_gifsave_buffer(image, bytes, length, NULL);
}
/// Packed 8-bit pixels of the whole image; g_free the answer.
void *parlor_vips_pixels(VipsImage *image, size_t *size) {
    return vips_image_write_to_memory(image, size);
}
void parlor_vips_unref(void *object) { g_object_unref(object); }
void parlor_vips_free(void *bytes) { g_free(bytes); }

