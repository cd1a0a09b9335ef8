// DwarfTypes: member paths of globals from readelf's dump of the debug information (the
// recorder names `obj.field`, `table[3].y`; tests/recorder/struct_fields.c runs it end to end).
#include "racepred/recording/dwarf_types.hpp"

#include <gtest/gtest.h>

namespace racepred::recording {
namespace RACEPRED_TEST_FILE {

// `readelf --debug-dump=info --wide` of (gcc 12, -g, trimmed to the attributes read):
//   struct inner { int x; int y; };
//   typedef struct { long a; struct inner in[3]; char c; } pair_t;
//   pair_t obj; volatile struct inner pts[4]; long plain;
const char* const kDump =
    "  Compilation Unit @ offset 0:\n"
    " <0><c>: Abbrev Number: 7 (DW_TAG_compile_unit)\n"
    " <1><2e>: Abbrev Number: 8 (DW_TAG_structure_type)\n"
    "    <2f>   DW_AT_name        : (strp) (offset: 0x17): inner\n"
    "    <33>   DW_AT_byte_size   : (data1) 8\n"
    " <2><3b>: Abbrev Number: 1 (DW_TAG_member)\n"
    "    <3c>   DW_AT_name        : (string) x\n"
    "    <40>   DW_AT_type        : (ref4) <0x55>, int\n"
    "    <44>   DW_AT_data_member_location: (data1) 0\n"
    " <2><45>: Abbrev Number: 1 (DW_TAG_member)\n"
    "    <46>   DW_AT_name        : (string) y\n"
    "    <4a>   DW_AT_type        : (ref4) <0x55>, int\n"
    "    <4e>   DW_AT_data_member_location: (data1) 4\n"
    " <2><4f>: Abbrev Number: 0\n"
    " <1><50>: Abbrev Number: 3 (DW_TAG_volatile_type)\n"
    "    <51>   DW_AT_type        : (ref4) <0x2e>, inner\n"
    " <1><55>: Abbrev Number: 9 (DW_TAG_base_type)\n"
    "    <56>   DW_AT_byte_size   : (data1) 4\n"
    "    <58>   DW_AT_name        : (string) int\n"
    " <1><5c>: Abbrev Number: 10 (DW_TAG_structure_type)\n"
    "    <5d>   DW_AT_byte_size   : (data1) 40\n"
    " <2><65>: Abbrev Number: 1 (DW_TAG_member)\n"
    "    <66>   DW_AT_name        : (string) a\n"
    "    <6a>   DW_AT_type        : (ref4) <0x85>, long int\n"
    "    <6e>   DW_AT_data_member_location: (data1) 0\n"
    " <2><6f>: Abbrev Number: 1 (DW_TAG_member)\n"
    "    <70>   DW_AT_name        : (string) in\n"
    "    <75>   DW_AT_type        : (ref4) <0x8c>, inner\n"
    "    <79>   DW_AT_data_member_location: (data1) 8\n"
    " <2><7a>: Abbrev Number: 1 (DW_TAG_member)\n"
    "    <7b>   DW_AT_name        : (string) c\n"
    "    <7f>   DW_AT_type        : (ref4) <0xa3>, char\n"
    "    <83>   DW_AT_data_member_location: (data1) 32\n"
    " <2><84>: Abbrev Number: 0\n"
    " <1><85>: Abbrev Number: 2 (DW_TAG_base_type)\n"
    "    <86>   DW_AT_byte_size   : (data1) 8\n"
    "    <88>   DW_AT_name        : (strp) (offset: 0x2a): long int\n"
    " <1><8c>: Abbrev Number: 4 (DW_TAG_array_type)\n"
    "    <8d>   DW_AT_type        : (ref4) <0x2e>, inner\n"
    " <2><95>: Abbrev Number: 5 (DW_TAG_subrange_type)\n"
    "    <96>   DW_AT_type        : (ref4) <0x9c>, long unsigned int\n"
    "    <9a>   DW_AT_upper_bound : (data1) 2\n"
    " <2><9b>: Abbrev Number: 0\n"
    " <1><9c>: Abbrev Number: 2 (DW_TAG_base_type)\n"
    "    <9d>   DW_AT_byte_size   : (data1) 8\n"
    "    <9f>   DW_AT_name        : (strp) (offset: 0): long unsigned int\n"
    " <1><a3>: Abbrev Number: 2 (DW_TAG_base_type)\n"
    "    <a4>   DW_AT_byte_size   : (data1) 1\n"
    "    <a6>   DW_AT_name        : (strp) (offset: 0x83): char\n"
    " <1><aa>: Abbrev Number: 11 (DW_TAG_typedef)\n"
    "    <ab>   DW_AT_name        : (strp) (offset: 0x1d): pair_t\n"
    "    <b2>   DW_AT_type        : (ref4) <0x5c>\n"
    " <1><b6>: Abbrev Number: 6 (DW_TAG_variable)\n"
    "    <b7>   DW_AT_name        : (string) obj\n"
    "    <bd>   DW_AT_type        : (ref4) <0xaa>, pair_t\n"
    "    <c1>   DW_AT_location    : (exprloc) 9 byte block: 3 80 40 0 0 0 0 0 0 \t(DW_OP_addr: "
    "4080)\n"
    " <1><cb>: Abbrev Number: 4 (DW_TAG_array_type)\n"
    "    <cc>   DW_AT_type        : (ref4) <0x50>, inner\n"
    " <2><d4>: Abbrev Number: 5 (DW_TAG_subrange_type)\n"
    "    <d5>   DW_AT_type        : (ref4) <0x9c>, long unsigned int\n"
    "    <d9>   DW_AT_upper_bound : (data1) 3\n"
    " <2><da>: Abbrev Number: 0\n"
    " <1><db>: Abbrev Number: 3 (DW_TAG_volatile_type)\n"
    "    <dc>   DW_AT_type        : (ref4) <0xcb>, inner\n"
    " <1><e0>: Abbrev Number: 6 (DW_TAG_variable)\n"
    "    <e1>   DW_AT_name        : (string) pts\n"
    "    <e7>   DW_AT_type        : (ref4) <0xdb>, inner\n"
    "    <eb>   DW_AT_location    : (exprloc) 9 byte block: 3 60 40 0 0 0 0 0 0 \t(DW_OP_addr: "
    "4060)\n"
    " <1><f5>: Abbrev Number: 12 (DW_TAG_variable)\n"
    "    <f6>   DW_AT_name        : (strp) (offset: 0x24): plain\n"
    "    <fd>   DW_AT_type        : (ref4) <0x85>, long int\n"
    "    <101>   DW_AT_location    : (exprloc) 9 byte block: 3 40 40 0 0 0 0 0 0 \t(DW_OP_addr: "
    "4040)\n";

std::string path_of(const DwarfTypes& types, uint64_t addr, uint64_t offset) {
  std::string path;
  EXPECT_TRUE(types.member_path(addr, offset, path)) << addr;
  return path;
}

TEST(DwarfTypes, MemberPathsThroughStructsArraysTypedefsAndQualifiers) {
  DwarfTypes types;
  types.parse(kDump);
  EXPECT_EQ(types.variables(), 3u);
  EXPECT_EQ(path_of(types, 0x4080, 0), ".a");
  EXPECT_EQ(path_of(types, 0x4080, 8), ".in[0].x");
  EXPECT_EQ(path_of(types, 0x4080, 20), ".in[1].y");
  EXPECT_EQ(path_of(types, 0x4080, 22), ".in[1].y+2");
  EXPECT_EQ(path_of(types, 0x4080, 32), ".c");
  EXPECT_EQ(path_of(types, 0x4080, 36), "+36");    // padding: no member
  EXPECT_EQ(path_of(types, 0x4060, 20), "[2].y");  // volatile array of structs
  EXPECT_EQ(path_of(types, 0x4060, 40), "+40");    // past its 4 elements
  EXPECT_EQ(path_of(types, 0x4040, 0), "");        // a scalar
  EXPECT_EQ(path_of(types, 0x4040, 4), "+4");
  std::string path;
  EXPECT_FALSE(types.member_path(0x4000, 0, path));  // not a global of the dump
}

// A pthread_mutex_t is a union of glibc's members (`__data`, `__size`): the path stops at the
// object the program declared (`counter_lock`, `lock+4`), never `counter_lock.__data.__lock`;
// a member named `_M_x` (libstdc++'s) likewise, while a user's `_x` is entered.
TEST(DwarfTypes, MembersWithReservedNamesAreNotEntered) {
  const char* const dump =
      "  Compilation Unit @ offset 0:\n"
      " <1><20>: Abbrev Number: 2 (DW_TAG_union_type)\n"
      "    <21>   DW_AT_byte_size   : (data1) 40\n"
      " <2><22>: Abbrev Number: 4 (DW_TAG_member)\n"
      "    <23>   DW_AT_name        : (strp) (offset: 0x5): __data\n"
      "    <24>   DW_AT_type        : (ref4) <0x60>\n"
      "    <25>   DW_AT_data_member_location: (data1) 0\n"
      " <2><26>: Abbrev Number: 0\n"
      " <1><30>: Abbrev Number: 11 (DW_TAG_typedef)\n"
      "    <31>   DW_AT_name        : (strp) (offset: 0x1d): pthread_mutex_t\n"
      "    <32>   DW_AT_type        : (ref4) <0x20>\n"
      " <1><40>: Abbrev Number: 3 (DW_TAG_structure_type)\n"
      "    <41>   DW_AT_byte_size   : (data1) 16\n"
      " <2><42>: Abbrev Number: 4 (DW_TAG_member)\n"
      "    <43>   DW_AT_name        : (string) _M_mutex\n"
      "    <44>   DW_AT_type        : (ref4) <0x60>\n"
      "    <45>   DW_AT_data_member_location: (data1) 0\n"
      " <2><46>: Abbrev Number: 4 (DW_TAG_member)\n"
      "    <47>   DW_AT_name        : (string) _count\n"
      "    <48>   DW_AT_type        : (ref4) <0x70>\n"
      "    <49>   DW_AT_data_member_location: (data1) 8\n"
      " <2><4a>: Abbrev Number: 0\n"
      " <1><60>: Abbrev Number: 3 (DW_TAG_structure_type)\n"
      "    <61>   DW_AT_byte_size   : (data1) 8\n"
      " <2><62>: Abbrev Number: 4 (DW_TAG_member)\n"
      "    <63>   DW_AT_name        : (string) __lock\n"
      "    <64>   DW_AT_type        : (ref4) <0x70>\n"
      "    <65>   DW_AT_data_member_location: (data1) 0\n"
      " <2><66>: Abbrev Number: 0\n"
      " <1><70>: Abbrev Number: 5 (DW_TAG_base_type)\n"
      "    <71>   DW_AT_byte_size   : (data1) 4\n"
      " <1><80>: Abbrev Number: 6 (DW_TAG_variable)\n"
      "    <81>   DW_AT_name        : (string) counter_lock\n"
      "    <82>   DW_AT_type        : (ref4) <0x30>, pthread_mutex_t\n"
      "    <83>   DW_AT_location    : (exprloc) 9 byte block: 3 0 50 0 0 0 0 0 0 \t(DW_OP_addr: "
      "5000)\n"
      " <1><90>: Abbrev Number: 6 (DW_TAG_variable)\n"
      "    <91>   DW_AT_name        : (string) guarded\n"
      "    <92>   DW_AT_type        : (ref4) <0x40>\n"
      "    <93>   DW_AT_location    : (exprloc) 9 byte block: 3 0 60 0 0 0 0 0 0 \t(DW_OP_addr: "
      "6000)\n";
  DwarfTypes types;
  types.parse(dump);
  EXPECT_EQ(path_of(types, 0x5000, 0), "");
  EXPECT_EQ(path_of(types, 0x5000, 4), "+4");
  EXPECT_EQ(path_of(types, 0x6000, 0), "");
  EXPECT_EQ(path_of(types, 0x6000, 8), "._count");
}

TEST(DwarfTypes, ClangAddrxLocationsAreResolvedThroughDebugAddr) {
  const char* const dump =
      "  Compilation Unit @ offset 0:\n"
      " <1><23>: Abbrev Number: 2 (DW_TAG_variable)\n"
      "    <24>   DW_AT_name        : (strx1) (offset: 0x3): stats\n"
      "    <29>   DW_AT_type        : (ref4) <0x32>\n"
      "    <2f>   DW_AT_location    : (exprloc)\t(DW_OP_addrx <0x1>)\n"
      " <1><32>: Abbrev Number: 3 (DW_TAG_structure_type)\n"
      "    <34>   DW_AT_byte_size   : (data1) 16\n"
      " <2><36>: Abbrev Number: 4 (DW_TAG_member)\n"
      "    <37>   DW_AT_name        : (strx1) (offset: 0x5): hits\n"
      "    <38>   DW_AT_type        : (ref4) <0x50>\n"
      "    <3c>   DW_AT_data_member_location: (data1) 0\n"
      " <2><3d>: Abbrev Number: 4 (DW_TAG_member)\n"
      "    <3e>   DW_AT_name        : (strx1) (offset: 0x6): misses\n"
      "    <3f>   DW_AT_type        : (ref4) <0x50>\n"
      "    <43>   DW_AT_data_member_location: (data1) 8\n"
      " <2><44>: Abbrev Number: 0\n"
      " <1><50>: Abbrev Number: 5 (DW_TAG_base_type)\n"
      "    <51>   DW_AT_byte_size   : (data1) 8\n"
      "Contents of the .debug_addr section:\n"
      "  For compilation unit at offset 0:\n"
      "\tIndex\tAddress\n"
      "\t0:\t0000000000014000\n"
      "\t1:\t0000000000014190\n";
  DwarfTypes types;
  types.parse(dump);
  EXPECT_EQ(path_of(types, 0x14190, 8), ".misses");
  EXPECT_EQ(path_of(types, 0x14190, 3), ".hits+3");
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::recording
