#ifndef PHOTOS_IMAGING_SHIM_H
#define PHOTOS_IMAGING_SHIM_H

// The imaging libraries' headers, and typed wrappers over the functions PhotosImaging calls,
// which this target resolves with dlopen on first use rather than linking: a command that draws
// no picture (`photos --version`, a cached `photos list`) does not pay for loading libchafa,
// GLib, TurboJPEG, libpng and libwebp at start-up. Every wrapper is the library's name prefixed
// `photos_`; called while its library cannot be loaded, it does nothing and returns NULL, 0 or an
// error status, so a missing library never crashes. Call photos_imaging_load first to learn why.

#include <chafa.h>
#include <png.h>
#include <stdbool.h>
#include <stddef.h>
#include <turbojpeg.h>
#include <webp/decode.h>

/// A library PhotosImaging loads on first use.
typedef enum photos_imaging_library {
    /// libchafa, and GLib for g_string_free.
    PHOTOS_IMAGING_CHAFA = 0,
    PHOTOS_IMAGING_TURBOJPEG = 1,
    PHOTOS_IMAGING_PNG = 2,
    PHOTOS_IMAGING_WEBP = 3,
} photos_imaging_library;

/// Loads `library` and resolves the functions photos uses, once per process (thread-safe).
/// Returns NULL once it is loaded, else why it cannot be (dlerror's text), the same on every call.
const char *photos_imaging_load(photos_imaging_library library);

/// Why `library` could not be loaded, without trying to load it: NULL while it has not been asked
/// for or once it is loaded.
const char *photos_imaging_load_failure(photos_imaging_library library);

/// The file `library` is loaded from first, e.g. "libchafa.so.0".
const char *photos_imaging_library_name(photos_imaging_library library);

/// Opens `name` (RTLD_NOW | RTLD_LOCAL) and resolves each of `symbols` into `functions`.
/// Returns the library's handle, or NULL with dlerror's text in `reason` (truncated to
/// `reason_size`) when the library cannot be opened or lacks a symbol. photos_imaging_load's
/// building block, exposed so tests can ask for a library that does not exist.
void *photos_imaging_open(const char *name, const char *const symbols[], void *functions[], size_t count, char *reason,
                          size_t reason_size);

// MARK: libchafa and GLib

ChafaCanvasConfig *photos_chafa_canvas_config_new(void);
void photos_chafa_canvas_config_unref(ChafaCanvasConfig *config);
void photos_chafa_canvas_config_set_geometry(ChafaCanvasConfig *config, gint width, gint height);
void photos_chafa_canvas_config_set_cell_geometry(ChafaCanvasConfig *config, gint cell_width, gint cell_height);
void photos_chafa_canvas_config_set_work_factor(ChafaCanvasConfig *config, gfloat work_factor);
void photos_chafa_canvas_config_set_optimizations(ChafaCanvasConfig *config, ChafaOptimizations optimizations);
void photos_chafa_canvas_config_set_pixel_mode(ChafaCanvasConfig *config, ChafaPixelMode pixel_mode);
void photos_chafa_canvas_config_set_canvas_mode(ChafaCanvasConfig *config, ChafaCanvasMode mode);
void photos_chafa_canvas_config_set_symbol_map(ChafaCanvasConfig *config, const ChafaSymbolMap *symbol_map);
ChafaSymbolMap *photos_chafa_symbol_map_new(void);
void photos_chafa_symbol_map_unref(ChafaSymbolMap *symbol_map);
void photos_chafa_symbol_map_add_by_tags(ChafaSymbolMap *symbol_map, ChafaSymbolTags tags);
void photos_chafa_symbol_map_remove_by_tags(ChafaSymbolMap *symbol_map, ChafaSymbolTags tags);
ChafaCanvas *photos_chafa_canvas_new(const ChafaCanvasConfig *config);
void photos_chafa_canvas_unref(ChafaCanvas *canvas);
void photos_chafa_canvas_draw_all_pixels(ChafaCanvas *canvas, ChafaPixelType src_pixel_type, const guint8 *src_pixels,
                                         gint src_width, gint src_height, gint src_rowstride);
GString *photos_chafa_canvas_print(ChafaCanvas *canvas, ChafaTermInfo *term_info);
void photos_chafa_set_n_threads(gint n);
ChafaTermDb *photos_chafa_term_db_get_default(void);
ChafaTermInfo *photos_chafa_term_db_get_fallback_info(ChafaTermDb *term_db);
gchar *photos_g_string_free(GString *string, gboolean free_segment);

// MARK: TurboJPEG

tjhandle photos_tjInitDecompress(void);
int photos_tjDestroy(tjhandle handle);
int photos_tjDecompressHeader3(tjhandle handle, const unsigned char *jpegBuf, unsigned long jpegSize, int *width,
                               int *height, int *jpegSubsamp, int *jpegColorspace);
int photos_tjDecompress2(tjhandle handle, const unsigned char *jpegBuf, unsigned long jpegSize, unsigned char *dstBuf,
                         int width, int pitch, int height, int pixelFormat, int flags);
/// Sets `*count` to 0 and returns NULL while TurboJPEG cannot be loaded.
tjscalingfactor *photos_tjGetScalingFactors(int *count);
char *photos_tjGetErrorStr2(tjhandle handle);

// MARK: libpng (simplified API)

int photos_png_image_begin_read_from_memory(png_imagep image, png_const_voidp memory, size_t size);
int photos_png_image_finish_read(png_imagep image, png_const_colorp background, void *buffer, png_int_32 row_stride,
                                 void *colormap);
int photos_png_image_write_to_memory(png_imagep image, void *memory, png_alloc_size_t *memory_bytes,
                                     int convert_to_8_bit, const void *buffer, png_int_32 row_stride,
                                     const void *colormap);
void photos_png_image_free(png_imagep image);

// MARK: libwebp

int photos_WebPGetInfo(const uint8_t *data, size_t data_size, int *width, int *height);
/// WebPInitDecoderConfig, a header inline over WebPInitDecoderConfigInternal with the ABI version
/// of the headers built against.
int photos_WebPInitDecoderConfig(WebPDecoderConfig *config);
/// VP8_STATUS_UNSUPPORTED_FEATURE while libwebp cannot be loaded.
VP8StatusCode photos_WebPDecode(const uint8_t *data, size_t data_size, WebPDecoderConfig *config);
void photos_WebPFreeDecBuffer(WebPDecBuffer *buffer);

#endif
