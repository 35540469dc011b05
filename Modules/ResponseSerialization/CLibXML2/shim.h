// libxml2 for AFResponseSerialization.
// Debian's libxml2 is built with ICU, so its encoding.h includes <unicode/ucnv.h>, whose UErrorCode clashes
// with the copy of ICU inside Foundation (_FoundationICU) in any Swift file importing both. Nothing here
// uses libxml2's ICU converter fields, so the ICU include is switched off after xmlversion.h defines it.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
