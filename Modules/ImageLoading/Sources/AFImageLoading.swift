// AFImageLoading: image response serializer (libpng, libjpeg-turbo), downloader, auto-purging cache, view binding.
// (The module's types land here; this file only names the module's purpose.)
