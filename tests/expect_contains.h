// EXPECT_CONTAINS(text, part): a gtest expectation that `text` contains
// `part`, printing both when it does not (error-message tests everywhere).
#ifndef SYMX_TESTS_EXPECT_CONTAINS_H_
#define SYMX_TESTS_EXPECT_CONTAINS_H_

#include <string>

#include "gtest/gtest.h"

#define EXPECT_CONTAINS(text, part)                            \
  do {                                                         \
    const std::string symx_text_ = (text);                     \
    EXPECT_NE(symx_text_.find(part), std::string::npos)        \
        << "expected \"" << (part) << "\" in: " << symx_text_; \
  } while (0)

#endif  // SYMX_TESTS_EXPECT_CONTAINS_H_
