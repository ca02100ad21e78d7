// `sstfilter inspect`: prints an Inspection (inspection.h) as tables or JSON.
#pragma once

#include <ostream>

#include "plugin/tools/inspection.h"

namespace sstfilter::tools {

void PrintInspectionText(const Inspection& inspection, std::ostream& out);
void PrintInspectionJson(const Inspection& inspection, std::ostream& out);

// The whole subcommand; returns the exit status: 0 no warning, 1 warnings,
// 2 a path that cannot be inspected.
int RunInspect(const InspectOptions& options, std::ostream& out, std::ostream& err);

}  // namespace sstfilter::tools
