// `symx im2rec PREFIX ROOT`: MXNet's tools/im2rec.py. With --list, writes
// PREFIX.lst (or PREFIX_train/_val/_test.lst) for the images under ROOT;
// without, packs every PREFIX*.lst beside PREFIX into .rec and .idx files
// (train/recordio/im2rec.h says how).
#ifndef SYMX_TOOLS_SYMX_IM2REC_H_
#define SYMX_TOOLS_SYMX_IM2REC_H_

#include <ostream>
#include <string>
#include <vector>

namespace symx::cli {

int Im2recMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_IM2REC_H_
