// RoFormer eq. 34 on the CPU in one pass over memory: the kernel behind rope_lib/cpu_kernel.py.
//
// x and out are (B, T, H, D) with any strides for B, T and H and the coordinates
// contiguous; out may be x itself (each step reads its pair before it writes it).
// Pair j holds (a, b) = (x[j], x[j + half]) in the half layout, (x[2j], x[2j + 1])
// in the interleaved one, and becomes (a·cos − b·sin, b·cos + a·sin) with the
// angle m·θ_j of the token's position m, read from (T, half) or (B, T, half)
// tables. The arithmetic is float32 (float64 for float64 x), one multiply or
// add at a time, as rope_lib.rotate_pairs does it, so results are identical.
// bf16 values travel as their 16 bits: a bf16 is the upper half of a float32.

#include <cstdint>
#include <cstring>

namespace {

inline float widen(std::uint16_t bits) {  // bf16 → the float32 it stands for, exactly
    std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &word, sizeof value);
    return value;
}

inline std::uint16_t narrow(float value) {  // float32 → the nearest bf16, ties to even; NaN stays NaN
    std::uint32_t word;
    std::memcpy(&word, &value, sizeof word);
    std::uint32_t rounded = (word + 0x7FFFu + ((word >> 16) & 1u)) >> 16;
    return value != value ? static_cast<std::uint16_t>(0x7FC0u) : static_cast<std::uint16_t>(rounded);
}

struct Bf16 {
    using Stored = std::uint16_t;
    using Math = float;
    static Math load(Stored bits) { return widen(bits); }
    static Stored store(Math value) { return narrow(value); }
};

template <typename Real>
struct Plain {
    using Stored = Real;
    using Math = Real;
    static Math load(Stored value) { return value; }
    static Stored store(Math value) { return value; }
};

constexpr std::int64_t kSerialWork = 1 << 15;  // below this many pairs, threads cost more than they save

template <typename Type>
void rotate(const typename Type::Stored* x, typename Type::Stored* out, const typename Type::Math* cos_table,
            const typename Type::Math* sin_table, std::int64_t batch, std::int64_t seq, std::int64_t heads,
            std::int64_t half, const std::int64_t* x_strides, const std::int64_t* out_strides,
            const std::int64_t* table_strides, int interleaved, int threads) {
    using Math = typename Type::Math;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads) if (batch * seq * heads * half > kSerialWork)
    for (std::int64_t n = 0; n < batch; ++n) {
        for (std::int64_t t = 0; t < seq; ++t) {
            const Math* c = cos_table + n * table_strides[0] + t * table_strides[1];
            const Math* s = sin_table + n * table_strides[0] + t * table_strides[1];
            for (std::int64_t h = 0; h < heads; ++h) {
                const typename Type::Stored* src = x + n * x_strides[0] + t * x_strides[1] + h * x_strides[2];
                typename Type::Stored* dst = out + n * out_strides[0] + t * out_strides[1] + h * out_strides[2];
                if (interleaved) {
#pragma omp simd
                    for (std::int64_t j = 0; j < half; ++j) {
                        const Math a = Type::load(src[2 * j]), b = Type::load(src[2 * j + 1]);
                        dst[2 * j] = Type::store(a * c[j] - b * s[j]);
                        dst[2 * j + 1] = Type::store(b * c[j] + a * s[j]);
                    }
                } else {
#pragma omp simd
                    for (std::int64_t j = 0; j < half; ++j) {
                        const Math a = Type::load(src[j]), b = Type::load(src[j + half]);
                        dst[j] = Type::store(a * c[j] - b * s[j]);
                        dst[j + half] = Type::store(b * c[j] + a * s[j]);
                    }
                }
            }
        }
    }
}

}  // namespace

#define ROPE_ENTRY(NAME, TYPE)                                                                                           \
    extern "C" void NAME(const void* x, void* out, const void* cos_table, const void* sin_table, std::int64_t batch,   \
                         std::int64_t seq, std::int64_t heads, std::int64_t half, const std::int64_t* x_strides,       \
                         const std::int64_t* out_strides, const std::int64_t* table_strides, int interleaved,          \
                         int threads) {                                                                                 \
        rotate<TYPE>(static_cast<const TYPE::Stored*>(x), static_cast<TYPE::Stored*>(out),                              \
                     static_cast<const TYPE::Math*>(cos_table), static_cast<const TYPE::Math*>(sin_table), batch, seq,  \
                     heads, half, x_strides, out_strides, table_strides, interleaved, threads);                         \
    }

ROPE_ENTRY(rope_rotate_float32, Plain<float>)
ROPE_ENTRY(rope_rotate_float64, Plain<double>)
ROPE_ENTRY(rope_rotate_bfloat16, Bf16)
