#ifndef CICU_BRIDGE_H
#define CICU_BRIDGE_H

#include <stdint.h>

// ICU's UTS 46 functions behind plain C types. ICU's own headers cannot be imported into Swift
// next to Foundation (whose _FoundationICU defines the same types), and Debian renames every
// ICU entry point with its version (uidna_openUTS46 → uidna_openUTS46_72) through macros that
// Swift does not import.

/// A UTS 46 converter with the options of the WHATWG URL standard's "domain to ASCII":
/// nontransitional processing, CheckBidi, CheckJoiners, no STD3 rules. NULL if ICU fails.
/// The object is immutable and may be used from any thread; it is never freed.
const void *cicu_url_standard_idna(void);

/// Converts `name` (UTF-8, `length` bytes) to ASCII. Returns the length of the result, which
/// may exceed `capacity` (then call again with a larger buffer), or -1 if ICU failed.
/// `errors` receives ICU's UIDNA_ERROR_* bits.
int32_t cicu_name_to_ascii(const void *idna, const char *name, int32_t length, char *dest, int32_t capacity,
                           uint32_t *errors);

/// The same for ToUnicode.
int32_t cicu_name_to_unicode(const void *idna, const char *name, int32_t length, char *dest, int32_t capacity,
                             uint32_t *errors);

#endif
