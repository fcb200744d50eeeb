// Only CICUBridge includes ICU's headers: Foundation on Linux carries its own copy of ICU's C
// types (_FoundationICU), and a Swift module that sees both fails to build.
#include <unicode/uidna.h>
