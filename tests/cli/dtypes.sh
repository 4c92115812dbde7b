# `sbrdma bench -d`: nccom-test's 16-bit and unsigned 32-bit types (int16, uint16, uint32) run
# and check clean, with the type's name and element count in the table (docs/bench.md, D28b).

check dtypes_uint16_sum 0 - -- bench allr -r 3 -b 1000 -d uint16 -c random
expect_out "# sbrdma bench allr: 3 ranks x 1 group on trn2, uint16 sum,"
expect_row 1000 500 uint16

check dtypes_int16_max 0 - -- bench allr -r 3 -b 1000 -d int16 -o max -c random
expect_out "int16 max,"
expect_row 1000 500 int16

check dtypes_uint32_min 0 - -- bench allr -r 3 -b 1000 -d uint32 -o min -c random
expect_out "uint32 min,"
expect_row 1000 250 uint32

# Random data of both signs: min/max that compared with the other signedness would be wrong.
check dtypes_int16_min 0 - -- bench allr -r 3 -b 1000 -d int16 -o min -c random
expect_row 1000 500 int16

# The reduce step on other algorithms: a ring's reduce-scatter max that must compare unsigned
# (1001 B rounds down to whole elements), an RDH sum that wraps, and an all-to-all.
check dtypes_redsct_ring 0 - -- bench redsct -r 4 -b 1001 -e 4K -f 4 -d uint16 -o max -c random --algorithm ring
expect_row 1000 500 uint16
expect_row 4004 2002 uint16
check dtypes_int16_sum_rdh 0 - -- bench allr -r 4 -b 2K -d int16 -c random --algorithm rdh
expect_row 2048 1024 int16
check dtypes_uint32_alltoall 0 - -- bench alltoall -r 3 -b 1200 -d uint32 -c random
expect_row 1200 300 uint32

# The ISA's other integer types are not collective dtypes: refused with nccom-test's list.
check dtypes_uint64_refused 1 - -- bench allr -r 2 -d uint64
expect_err "error: -d: unknown data type 'uint64' (one of: fp32, bf16, fp16, int32, uint32, int16, uint16, int8, uint8; also float32, bfloat16, float16)"
expect_err_lines 1
