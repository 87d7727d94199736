#include "ImagingShim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

// Each library's functions, listed once: the list declares the function pointers (typed from the
// library's own header), names the symbols to resolve and copies them in.
#define PHOTOS_CHAFA_FUNCTIONS(X)            \
    X(chafa_canvas_config_new)               \
    X(chafa_canvas_config_unref)             \
    X(chafa_canvas_config_set_geometry)      \
    X(chafa_canvas_config_set_cell_geometry) \
    X(chafa_canvas_config_set_work_factor)   \
    X(chafa_canvas_config_set_optimizations) \
    X(chafa_canvas_config_set_pixel_mode)    \
    X(chafa_canvas_config_set_canvas_mode)   \
    X(chafa_canvas_config_set_symbol_map)    \
    X(chafa_symbol_map_new)                  \
    X(chafa_symbol_map_unref)                \
    X(chafa_symbol_map_add_by_tags)          \
    X(chafa_symbol_map_remove_by_tags)       \
    X(chafa_canvas_new)                      \
    X(chafa_canvas_unref)                    \
    X(chafa_canvas_draw_all_pixels)          \
    X(chafa_canvas_print)                    \
    X(chafa_set_n_threads)                   \
    X(chafa_term_db_get_default)             \
    X(chafa_term_db_get_fallback_info)

// chafa_canvas_print returns a GString, which only GLib frees.
#define PHOTOS_GLIB_FUNCTIONS(X) X(g_string_free)

#define PHOTOS_TURBOJPEG_FUNCTIONS(X) \
    X(tjInitDecompress)               \
    X(tjDestroy)                      \
    X(tjDecompressHeader3)            \
    X(tjDecompress2)                  \
    X(tjGetScalingFactors)            \
    X(tjGetErrorStr2)

#define PHOTOS_PNG_FUNCTIONS(X)         \
    X(png_image_begin_read_from_memory) \
    X(png_image_finish_read)            \
    X(png_image_write_to_memory)        \
    X(png_image_free)

#define PHOTOS_WEBP_FUNCTIONS(X)     \
    X(WebPGetInfo)                   \
    X(WebPInitDecoderConfigInternal) \
    X(WebPDecode)                    \
    X(WebPFreeDecBuffer)

// Members are called as (lib.name)(...): the parentheses keep a function-like macro of the same
// name (GLib 2.76 defines one for g_string_free) from expanding.
#define PHOTOS_POINTER(name) __typeof__(name) *name;
#define PHOTOS_SYMBOL(name) #name,
#define PHOTOS_COUNT(name) +1
#define PHOTOS_TAKE(name) memcpy(&target->name, &functions[index++], sizeof(void *));

static struct {
    PHOTOS_CHAFA_FUNCTIONS(PHOTOS_POINTER)
    PHOTOS_GLIB_FUNCTIONS(PHOTOS_POINTER)
} chafa_api;
static struct {
    PHOTOS_TURBOJPEG_FUNCTIONS(PHOTOS_POINTER)
} turbojpeg_api;
static struct {
    PHOTOS_PNG_FUNCTIONS(PHOTOS_POINTER)
} png_api;
static struct {
    PHOTOS_WEBP_FUNCTIONS(PHOTOS_POINTER)
} webp_api;

// The files each library is opened from, first to last: Debian's sonames; on macOS Homebrew's
// install names, which dlopen finds under /usr/local/lib (Intel) but not /opt/homebrew/lib.
#if defined(__APPLE__)
#define PHOTOS_FILES(linux_name, macos_name) \
    { macos_name, "/opt/homebrew/lib/" macos_name, "/usr/local/lib/" macos_name, NULL }
#else
#define PHOTOS_FILES(linux_name, macos_name) { linux_name, NULL }
#endif

static const char *const chafa_files[] = PHOTOS_FILES("libchafa.so.0", "libchafa.0.dylib");
static const char *const glib_files[] = PHOTOS_FILES("libglib-2.0.so.0", "libglib-2.0.0.dylib");
static const char *const turbojpeg_files[] = PHOTOS_FILES("libturbojpeg.so.0", "libturbojpeg.0.dylib");
static const char *const png_files[] = PHOTOS_FILES("libpng16.so.16", "libpng16.16.dylib");
static const char *const webp_files[] = PHOTOS_FILES("libwebp.so.7", "libwebp.7.dylib");

void *photos_imaging_open(const char *name, const char *const symbols[], void *functions[], size_t count, char *reason,
                          size_t reason_size) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(reason, reason_size, "%s", error != NULL ? error : "dlopen failed");
        return NULL;
    }
    for (size_t index = 0; index < count; index++) {
        dlerror();
        functions[index] = dlsym(library, symbols[index]);
        if (functions[index] == NULL) {
            const char *error = dlerror();
            snprintf(reason, reason_size, "%s", error != NULL ? error : symbols[index]);
            dlclose(library);
            return NULL;
        }
    }
    // Never closed: its functions stay in use until the process exits.
    return library;
}

// MARK: Loading, once per library

enum { PHOTOS_NOT_ASKED = 0, PHOTOS_LOADED = 1, PHOTOS_FAILED = 2 };

#define PHOTOS_REASON_SIZE 512

static struct photos_imaging_loader {
    pthread_once_t once;
    /// Stored last (release) by the loading thread, so that photos_imaging_load_failure can read
    /// `reason` from any thread without waiting on `once`.
    atomic_int state;
    char reason[PHOTOS_REASON_SIZE];
} loaders[] = {
    [PHOTOS_IMAGING_CHAFA] = {PTHREAD_ONCE_INIT, PHOTOS_NOT_ASKED, ""},
    [PHOTOS_IMAGING_TURBOJPEG] = {PTHREAD_ONCE_INIT, PHOTOS_NOT_ASKED, ""},
    [PHOTOS_IMAGING_PNG] = {PTHREAD_ONCE_INIT, PHOTOS_NOT_ASKED, ""},
    [PHOTOS_IMAGING_WEBP] = {PTHREAD_ONCE_INIT, PHOTOS_NOT_ASKED, ""},
};

static const char *const *const library_files[] = {
    [PHOTOS_IMAGING_CHAFA] = chafa_files,
    [PHOTOS_IMAGING_TURBOJPEG] = turbojpeg_files,
    [PHOTOS_IMAGING_PNG] = png_files,
    [PHOTOS_IMAGING_WEBP] = webp_files,
};

/// Opens the first of `files` that loads with every symbol; the reason given is the first file's.
static bool photos_imaging_open_first(const char *const files[], const char *const symbols[], void *functions[],
                                      size_t count, char *reason) {
    char later[PHOTOS_REASON_SIZE];
    for (size_t index = 0; files[index] != NULL; index++) {
        char *text = index == 0 ? reason : later;
        if (photos_imaging_open(files[index], symbols, functions, count, text, PHOTOS_REASON_SIZE) != NULL) return true;
    }
    return false;
}

// Resolves the functions of LIST from `files` into `target`, or returns false with the reason
// in `loader`.
#define PHOTOS_RESOLVE(LIST, files)                                                               \
    do {                                                                                          \
        static const char *const symbols[] = {LIST(PHOTOS_SYMBOL)};                               \
        void *functions[0 LIST(PHOTOS_COUNT)];                                                    \
        size_t count = sizeof(functions) / sizeof(functions[0]);                                  \
        if (!photos_imaging_open_first(files, symbols, functions, count, loader->reason)) return false; \
        size_t index = 0;                                                                         \
        LIST(PHOTOS_TAKE)                                                                         \
    } while (0)

static bool photos_resolve_chafa(struct photos_imaging_loader *loader) {
    __typeof__(chafa_api) *target = &chafa_api;
    // libchafa first: without GLib it does not load, and dlerror names GLib.
    PHOTOS_RESOLVE(PHOTOS_CHAFA_FUNCTIONS, chafa_files);
    PHOTOS_RESOLVE(PHOTOS_GLIB_FUNCTIONS, glib_files);
    return true;
}

static bool photos_resolve_turbojpeg(struct photos_imaging_loader *loader) {
    __typeof__(turbojpeg_api) *target = &turbojpeg_api;
    PHOTOS_RESOLVE(PHOTOS_TURBOJPEG_FUNCTIONS, turbojpeg_files);
    return true;
}

static bool photos_resolve_png(struct photos_imaging_loader *loader) {
    __typeof__(png_api) *target = &png_api;
    PHOTOS_RESOLVE(PHOTOS_PNG_FUNCTIONS, png_files);
    return true;
}

static bool photos_resolve_webp(struct photos_imaging_loader *loader) {
    __typeof__(webp_api) *target = &webp_api;
    PHOTOS_RESOLVE(PHOTOS_WEBP_FUNCTIONS, webp_files);
    return true;
}

static void photos_finish(struct photos_imaging_loader *loader, bool loaded) {
    atomic_store_explicit(&loader->state, loaded ? PHOTOS_LOADED : PHOTOS_FAILED, memory_order_release);
}

static void photos_load_chafa(void) {
    struct photos_imaging_loader *loader = &loaders[PHOTOS_IMAGING_CHAFA];
    photos_finish(loader, photos_resolve_chafa(loader));
}

static void photos_load_turbojpeg(void) {
    struct photos_imaging_loader *loader = &loaders[PHOTOS_IMAGING_TURBOJPEG];
    photos_finish(loader, photos_resolve_turbojpeg(loader));
}

static void photos_load_png(void) {
    struct photos_imaging_loader *loader = &loaders[PHOTOS_IMAGING_PNG];
    photos_finish(loader, photos_resolve_png(loader));
}

static void photos_load_webp(void) {
    struct photos_imaging_loader *loader = &loaders[PHOTOS_IMAGING_WEBP];
    photos_finish(loader, photos_resolve_webp(loader));
}

static void (*const load_routines[])(void) = {
    [PHOTOS_IMAGING_CHAFA] = photos_load_chafa,
    [PHOTOS_IMAGING_TURBOJPEG] = photos_load_turbojpeg,
    [PHOTOS_IMAGING_PNG] = photos_load_png,
    [PHOTOS_IMAGING_WEBP] = photos_load_webp,
};

static bool photos_known(photos_imaging_library library) {
    return (unsigned)library < sizeof(loaders) / sizeof(loaders[0]);
}

const char *photos_imaging_load(photos_imaging_library library) {
    if (!photos_known(library)) return "no such library";
    struct photos_imaging_loader *loader = &loaders[library];
    pthread_once(&loader->once, load_routines[library]);
    return atomic_load_explicit(&loader->state, memory_order_acquire) == PHOTOS_LOADED ? NULL : loader->reason;
}

const char *photos_imaging_load_failure(photos_imaging_library library) {
    if (!photos_known(library)) return NULL;
    struct photos_imaging_loader *loader = &loaders[library];
    return atomic_load_explicit(&loader->state, memory_order_acquire) == PHOTOS_FAILED ? loader->reason : NULL;
}

const char *photos_imaging_library_name(photos_imaging_library library) {
    return photos_known(library) ? library_files[library][0] : "";
}

static inline bool photos_ready(photos_imaging_library library) { return photos_imaging_load(library) == NULL; }

// MARK: libchafa and GLib

#define PHOTOS_CHAFA_READY photos_ready(PHOTOS_IMAGING_CHAFA)

ChafaCanvasConfig *photos_chafa_canvas_config_new(void) {
    return PHOTOS_CHAFA_READY ? (chafa_api.chafa_canvas_config_new)() : NULL;
}

void photos_chafa_canvas_config_unref(ChafaCanvasConfig *config) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_config_unref)(config);
}

void photos_chafa_canvas_config_set_geometry(ChafaCanvasConfig *config, gint width, gint height) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_config_set_geometry)(config, width, height);
}

void photos_chafa_canvas_config_set_cell_geometry(ChafaCanvasConfig *config, gint cell_width, gint cell_height) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_config_set_cell_geometry)(config, cell_width, cell_height);
}

void photos_chafa_canvas_config_set_work_factor(ChafaCanvasConfig *config, gfloat work_factor) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_config_set_work_factor)(config, work_factor);
}

void photos_chafa_canvas_config_set_optimizations(ChafaCanvasConfig *config, ChafaOptimizations optimizations) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_config_set_optimizations)(config, optimizations);
}

void photos_chafa_canvas_config_set_pixel_mode(ChafaCanvasConfig *config, ChafaPixelMode pixel_mode) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_config_set_pixel_mode)(config, pixel_mode);
}

void photos_chafa_canvas_config_set_canvas_mode(ChafaCanvasConfig *config, ChafaCanvasMode mode) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_config_set_canvas_mode)(config, mode);
}

void photos_chafa_canvas_config_set_symbol_map(ChafaCanvasConfig *config, const ChafaSymbolMap *symbol_map) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_config_set_symbol_map)(config, symbol_map);
}

ChafaSymbolMap *photos_chafa_symbol_map_new(void) {
    return PHOTOS_CHAFA_READY ? (chafa_api.chafa_symbol_map_new)() : NULL;
}

void photos_chafa_symbol_map_unref(ChafaSymbolMap *symbol_map) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_symbol_map_unref)(symbol_map);
}

void photos_chafa_symbol_map_add_by_tags(ChafaSymbolMap *symbol_map, ChafaSymbolTags tags) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_symbol_map_add_by_tags)(symbol_map, tags);
}

void photos_chafa_symbol_map_remove_by_tags(ChafaSymbolMap *symbol_map, ChafaSymbolTags tags) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_symbol_map_remove_by_tags)(symbol_map, tags);
}

ChafaCanvas *photos_chafa_canvas_new(const ChafaCanvasConfig *config) {
    return PHOTOS_CHAFA_READY ? (chafa_api.chafa_canvas_new)(config) : NULL;
}

void photos_chafa_canvas_unref(ChafaCanvas *canvas) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_canvas_unref)(canvas);
}

void photos_chafa_canvas_draw_all_pixels(ChafaCanvas *canvas, ChafaPixelType src_pixel_type, const guint8 *src_pixels,
                                         gint src_width, gint src_height, gint src_rowstride) {
    if (PHOTOS_CHAFA_READY) {
        (chafa_api.chafa_canvas_draw_all_pixels)(canvas, src_pixel_type, src_pixels, src_width, src_height, src_rowstride);
    }
}

GString *photos_chafa_canvas_print(ChafaCanvas *canvas, ChafaTermInfo *term_info) {
    return PHOTOS_CHAFA_READY ? (chafa_api.chafa_canvas_print)(canvas, term_info) : NULL;
}

void photos_chafa_set_n_threads(gint n) {
    if (PHOTOS_CHAFA_READY) (chafa_api.chafa_set_n_threads)(n);
}

ChafaTermDb *photos_chafa_term_db_get_default(void) {
    return PHOTOS_CHAFA_READY ? (chafa_api.chafa_term_db_get_default)() : NULL;
}

ChafaTermInfo *photos_chafa_term_db_get_fallback_info(ChafaTermDb *term_db) {
    return PHOTOS_CHAFA_READY ? (chafa_api.chafa_term_db_get_fallback_info)(term_db) : NULL;
}

gchar *photos_g_string_free(GString *string, gboolean free_segment) {
    return PHOTOS_CHAFA_READY ? (chafa_api.g_string_free)(string, free_segment) : NULL;
}

// MARK: TurboJPEG

#define PHOTOS_TURBOJPEG_READY photos_ready(PHOTOS_IMAGING_TURBOJPEG)

tjhandle photos_tjInitDecompress(void) {
    return PHOTOS_TURBOJPEG_READY ? (turbojpeg_api.tjInitDecompress)() : NULL;
}

int photos_tjDestroy(tjhandle handle) {
    return PHOTOS_TURBOJPEG_READY ? (turbojpeg_api.tjDestroy)(handle) : -1;
}

int photos_tjDecompressHeader3(tjhandle handle, const unsigned char *jpegBuf, unsigned long jpegSize, int *width,
                               int *height, int *jpegSubsamp, int *jpegColorspace) {
    if (!PHOTOS_TURBOJPEG_READY) return -1;
    return (turbojpeg_api.tjDecompressHeader3)(handle, jpegBuf, jpegSize, width, height, jpegSubsamp, jpegColorspace);
}

int photos_tjDecompress2(tjhandle handle, const unsigned char *jpegBuf, unsigned long jpegSize, unsigned char *dstBuf,
                         int width, int pitch, int height, int pixelFormat, int flags) {
    if (!PHOTOS_TURBOJPEG_READY) return -1;
    return (turbojpeg_api.tjDecompress2)(handle, jpegBuf, jpegSize, dstBuf, width, pitch, height, pixelFormat, flags);
}

tjscalingfactor *photos_tjGetScalingFactors(int *count) {
    if (!PHOTOS_TURBOJPEG_READY) {
        *count = 0;
        return NULL;
    }
    return (turbojpeg_api.tjGetScalingFactors)(count);
}

char *photos_tjGetErrorStr2(tjhandle handle) {
    return PHOTOS_TURBOJPEG_READY ? (turbojpeg_api.tjGetErrorStr2)(handle) : NULL;
}

// MARK: libpng

#define PHOTOS_PNG_READY photos_ready(PHOTOS_IMAGING_PNG)

int photos_png_image_begin_read_from_memory(png_imagep image, png_const_voidp memory, size_t size) {
    return PHOTOS_PNG_READY ? (png_api.png_image_begin_read_from_memory)(image, memory, size) : 0;
}

int photos_png_image_finish_read(png_imagep image, png_const_colorp background, void *buffer, png_int_32 row_stride,
                                 void *colormap) {
    return PHOTOS_PNG_READY ? (png_api.png_image_finish_read)(image, background, buffer, row_stride, colormap) : 0;
}

int photos_png_image_write_to_memory(png_imagep image, void *memory, png_alloc_size_t *memory_bytes,
                                     int convert_to_8_bit, const void *buffer, png_int_32 row_stride,
                                     const void *colormap) {
    if (!PHOTOS_PNG_READY) return 0;
    return (png_api.png_image_write_to_memory)(image, memory, memory_bytes, convert_to_8_bit, buffer, row_stride, colormap);
}

void photos_png_image_free(png_imagep image) {
    if (PHOTOS_PNG_READY) (png_api.png_image_free)(image);
}

// MARK: libwebp

#define PHOTOS_WEBP_READY photos_ready(PHOTOS_IMAGING_WEBP)

int photos_WebPGetInfo(const uint8_t *data, size_t data_size, int *width, int *height) {
    return PHOTOS_WEBP_READY ? (webp_api.WebPGetInfo)(data, data_size, width, height) : 0;
}

int photos_WebPInitDecoderConfig(WebPDecoderConfig *config) {
    return PHOTOS_WEBP_READY ? (webp_api.WebPInitDecoderConfigInternal)(config, WEBP_DECODER_ABI_VERSION) : 0;
}

VP8StatusCode photos_WebPDecode(const uint8_t *data, size_t data_size, WebPDecoderConfig *config) {
    return PHOTOS_WEBP_READY ? (webp_api.WebPDecode)(data, data_size, config) : VP8_STATUS_UNSUPPORTED_FEATURE;
}

void photos_WebPFreeDecBuffer(WebPDecBuffer *buffer) {
    if (PHOTOS_WEBP_READY) (webp_api.WebPFreeDecBuffer)(buffer);
}
