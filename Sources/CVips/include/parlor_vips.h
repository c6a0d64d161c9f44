// libvips from Debian (libvips-dev, 8.14), through fixed-arity wrappers: Swift cannot call C variadic
// functions such as vips_thumbnail or vips_webpsave_buffer, nor the VIPS_INIT macro. Images are opaque
// here, so Swift needs none of GLib's headers; shim.c includes libvips itself.
#ifndef PARLOR_VIPS_H
#define PARLOR_VIPS_H

#include <stddef.h>

typedef struct _VipsImage VipsImage;

/// Starts libvips for Parlor: no operation cache (every upload is new; a cache only holds memory), every
/// loader blocked but JPEG, PNG, WebP and GIF, and no loader libvips marks untrusted. 0 on success.
int parlor_vips_start(void);

/// The last error libvips recorded, then forgotten.
const char *parlor_vips_error(void);
void parlor_vips_error_clear(void);

/// The header of `path` only (no pixel is decoded). NULL when no allowed loader reads it. Unref the answer.
VipsImage *parlor_vips_header(const char *path);
int parlor_vips_width(VipsImage *image);
int parlor_vips_height(VipsImage *image);
int parlor_vips_pages(VipsImage *image);
int parlor_vips_page_height(VipsImage *image);
int parlor_vips_bands(VipsImage *image);
int parlor_vips_has(VipsImage *image, const char *name);
/// The EXIF orientation, 1 to 8; 0 when the image has none.
int parlor_vips_orientation(VipsImage *image);
/// The name of the loader that read the header ("jpegload"); NULL when unknown.
const char *parlor_vips_loader(VipsImage *image);

/// `path` (all its frames when `all_pages`) shrunk to fit `width` x `height`, never enlarged, turned
/// upright by its EXIF orientation; cropped to fill the box when `crop`. A truncated file is an error.
int parlor_vips_thumbnail(const char *path, int all_pages, int width, int height, int crop, VipsImage **out);

/// Encoders that keep no metadata (no EXIF, no XMP, no ICC): nothing like GPS leaves the server.
int parlor_vips_webp(VipsImage *image, int quality, void **bytes, size_t *length);
int parlor_vips_jpeg(VipsImage *image, int quality, void **bytes, size_t *length);
int parlor_vips_png(VipsImage *image, void **bytes, size_t *length);
int parlor_vips_gif(VipsImage *image, void **bytes, size_t *length);

// For tests, which make their own files.
VipsImage *parlor_vips_from_pixels(const void *pixels, size_t size, int width, int height, int bands);
VipsImage *parlor_vips_from_bytes(const void *bytes, size_t length);
int parlor_vips_jpeg_keeping(VipsImage *image, void **bytes, size_t *length);
int parlor_vips_jpeg_progressive(VipsImage *image, void **bytes, size_t *length);
void parlor_vips_set_orientation(VipsImage *image, int orientation);
void parlor_vips_set_pages(VipsImage *image, int page_height, int delay_ms);
int parlor_vips_gif_keeping(VipsImage *image, void **bytes, size_t *length);
void *parlor_vips_pixels(VipsImage *image, size_t *size);

void parlor_vips_unref(void *object);
void parlor_vips_free(void *bytes);

#endif
