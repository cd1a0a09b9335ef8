#include <gtest/gtest.h>

#include <string>

#include "racepred/trace/symbols.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

TEST(SymbolTable, InternsDenseIdsInOrderOfFirstAppearance) {
  SymbolTable t;
  EXPECT_EQ(t.intern("T0"), 0u);
  EXPECT_EQ(t.intern("T1"), 1u);
  EXPECT_EQ(t.intern("T0"), 0u);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.name(1), "T1");
  EXPECT_EQ(t.find("T1"), 1u);
  EXPECT_FALSE(t.find("T2").has_value());
}

TEST(SymbolTable, NamesAreCaseAndSpaceSensitive) {
  SymbolTable t;
  EXPECT_NE(t.intern("T1"), t.intern("T1 "));
  EXPECT_NE(t.intern("x"), t.intern("X"));
}

TEST(SymbolTable, SurvivesGrowthWithManyNames) {
  SymbolTable t;
  for (int i = 0; i < 100000; ++i) ASSERT_EQ(t.intern("name" + std::to_string(i)), uint32_t(i));
  for (int i = 0; i < 100000; i += 997) EXPECT_EQ(t.find("name" + std::to_string(i)), uint32_t(i));
  EXPECT_EQ(t.size(), 100000u);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
