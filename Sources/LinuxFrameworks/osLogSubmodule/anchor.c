// SwiftPM builds no C target without a source file; this one holds nothing.
#include "os_overlay_anchor.h"
