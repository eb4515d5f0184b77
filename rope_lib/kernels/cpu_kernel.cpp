// RoFormer eq. 34 on the CPU in one pass over memory: the kernel behind rope_lib/cpu_kernel.py.
//
// x and out are (B, T, H, D) with any strides for B, T and H and the coordinates
// contiguous; out may be x itself (each step reads its pair before it writes it).
// Pair j holds (a, b) = (x[j], x[j + half]) in the half layout, (x[2j], x[2j + 1])
// in the interleaved one, and becomes (a·cos − b·sin, b·cos + a·sin) with the
// angle m·θ_j of the token's position m, read from (T, half) or (B, T, half)
// tables. The arithmetic is float32 (float64 for float64 x), one multiply or
// add at a time, as rope_lib.rotate_pairs does it, so results are identical (a NaN
// stays a NaN; its bits may differ, as they do between torch's own bf16 conversions).
// bf16 values travel as their 16 bits: a bf16 is the upper half of a float32.
//
// With `stream` set (rope_lib/cpu_kernel.py sets it when a call reads and writes
// more bytes than its threads' private caches hold, so that the output leaves them
// before anything reads it) each rotated row is assembled in a small aligned buffer and
// written out with non-temporal stores, which skip reading the destination's
// old contents into the cache first: they move a third fewer bytes.

#include <cstdint>
#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
constexpr std::int64_t kStreamBytes = 32;  // one AVX store
#elif defined(__SSE2__)
#include <emmintrin.h>
constexpr std::int64_t kStreamBytes = 16;  // one SSE2 store
#else
constexpr std::int64_t kStreamBytes = 0;  // no non-temporal stores: rows are always written directly
#endif

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
constexpr std::int64_t kRowBuffer = 4096;        // bytes of the per-thread buffer a streamed row is assembled in

template <typename Type>
inline void rotate_pairs(const typename Type::Stored* src,
                         typename Type::Stored* dst,
                         const typename Type::Math* c,
                         const typename Type::Math* s, std::int64_t first,
                         std::int64_t last, std::int64_t half,
                         int interleaved) {
    using Math = typename Type::Math;
    if (interleaved) {
#pragma omp simd
        for (std::int64_t j = first; j < last; ++j) {
            const Math a = Type::load(src[2 * j]);
            const Math b = Type::load(src[2 * j + 1]);
            dst[2 * j] = Type::store(a * c[j] - b * s[j]);
            dst[2 * j + 1] = Type::store(b * c[j] + a * s[j]);
        }
    } else {
#pragma omp simd
        for (std::int64_t j = first; j < last; ++j) {
            const Math a = Type::load(src[j]);
            const Math b = Type::load(src[j + half]);
            dst[j] = Type::store(a * c[j] - b * s[j]);
            dst[j + half] = Type::store(b * c[j] + a * s[j]);
        }
    }
}

// One row of a head: its pairs j = 0 … half − 1.
template <typename Type>
inline void rotate_row(const typename Type::Stored* src, typename Type::Stored* dst, const typename Type::Math* c,
                       const typename Type::Math* s, std::int64_t half, int interleaved) {
    rotate_pairs<Type>(src, dst, c, s, 0, half, half, interleaved);
}

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512BF16__)
// bf16 on processors that convert float32 to bf16 in one instruction (AVX512-BF16). The instruction rounds to
// nearest, ties to even, like `narrow`, but reads subnormal numbers as zero and keeps NaN payloads: a block of
// 16 pairs with any such result is redone by the portable loop, so both paths give the same bits.
constexpr int kNanOrSubnormal = 0x01 | 0x20 | 0x80;  // vfpclassps classes: quiet NaN, subnormal, signalling NaN

inline __m512 widen16(__m256i bits) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16)); }

template <>
inline void rotate_row<Bf16>(const std::uint16_t* src, std::uint16_t* dst, const float* c, const float* s,
                             std::int64_t half, int interleaved) {
    const __m512i pair_order = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7,
                                                22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);  // (a_k, b_k) word by word
    std::int64_t j = 0;
    for (; j + 16 <= half; j += 16) {
        __m512 a, b;
        if (interleaved) {
            const __m512i words = _mm512_loadu_si512(src + 2 * j);  // pair k: a in the low half of word k, b in the high
            a = _mm512_castsi512_ps(_mm512_slli_epi32(words, 16));
            b = _mm512_castsi512_ps(_mm512_and_si512(words, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
        } else {
            a = widen16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + j)));
            b = widen16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + j + half)));
        }
        const __m512 cj = _mm512_loadu_ps(c + j), sj = _mm512_loadu_ps(s + j);
        const __m512 a_turned = _mm512_sub_ps(_mm512_mul_ps(a, cj), _mm512_mul_ps(b, sj));
        const __m512 b_turned = _mm512_add_ps(_mm512_mul_ps(b, cj), _mm512_mul_ps(a, sj));
        if (_mm512_fpclass_ps_mask(a_turned, kNanOrSubnormal) | _mm512_fpclass_ps_mask(b_turned, kNanOrSubnormal)) {
            rotate_pairs<Bf16>(src, dst, c, s, j, j + 16, half, interleaved);
            continue;
        }
        const __m512i both = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b_turned, a_turned));  // a's 16, then b's 16
        if (interleaved) {
            _mm512_storeu_si512(dst + 2 * j, _mm512_permutexvar_epi16(pair_order, both));
        } else {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), _mm512_castsi512_si256(both));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j + half), _mm512_extracti64x4_epi64(both, 1));
        }
    }
    rotate_pairs<Bf16>(src, dst, c, s, j, half, half, interleaved);
}
#endif

inline void stream_row(const void* from, void* to, std::int64_t bytes) {  // bytes: a multiple of kStreamBytes
#if defined(__AVX__)
    for (std::int64_t k = 0; k < bytes; k += kStreamBytes) {
        const __m256i chunk = _mm256_load_si256(reinterpret_cast<const __m256i*>(static_cast<const char*>(from) + k));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(static_cast<char*>(to) + k), chunk);
    }
#elif defined(__SSE2__)
    for (std::int64_t k = 0; k < bytes; k += kStreamBytes) {
        const __m128i chunk = _mm_load_si128(reinterpret_cast<const __m128i*>(static_cast<const char*>(from) + k));
        _mm_stream_si128(reinterpret_cast<__m128i*>(static_cast<char*>(to) + k), chunk);
    }
#else
    std::memcpy(to, from, static_cast<std::size_t>(bytes));
#endif
}

inline void finish_streaming() {  // make this thread's non-temporal stores visible before the kernel returns
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

template <typename Type>
void rotate(const typename Type::Stored* x, typename Type::Stored* out, const typename Type::Math* cos_table,
            const typename Type::Math* sin_table, std::int64_t batch, std::int64_t seq, std::int64_t heads,
            std::int64_t half, const std::int64_t* x_strides, const std::int64_t* out_strides,
            const std::int64_t* table_strides, int interleaved, int threads, int stream) {
    using Math = typename Type::Math;
    using Stored = typename Type::Stored;
    const std::int64_t row_bytes = 2 * half * static_cast<std::int64_t>(sizeof(Stored));
    const bool streamable = stream && kStreamBytes > 0 && row_bytes % kStreamBytes == 0 && row_bytes <= kRowBuffer;
#pragma omp parallel num_threads(threads) if (batch * seq * heads * half > kSerialWork)
    {
        alignas(64) Stored row[kRowBuffer / sizeof(Stored)];
#pragma omp for collapse(2) schedule(static)
        for (std::int64_t n = 0; n < batch; ++n) {
            for (std::int64_t t = 0; t < seq; ++t) {
                const Math* c = cos_table + n * table_strides[0] + t * table_strides[1];
                const Math* s = sin_table + n * table_strides[0] + t * table_strides[1];
                for (std::int64_t h = 0; h < heads; ++h) {
                    const Stored* src = x + n * x_strides[0] + t * x_strides[1] + h * x_strides[2];
                    Stored* dst = out + n * out_strides[0] + t * out_strides[1] + h * out_strides[2];
                    if (streamable && reinterpret_cast<std::uintptr_t>(dst) % kStreamBytes == 0) {
                        rotate_row<Type>(src, row, c, s, half, interleaved);
                        stream_row(row, dst, row_bytes);
                    } else {
                        rotate_row<Type>(src, dst, c, s, half, interleaved);
                    }
                }
            }
        }
        finish_streaming();
    }
}

}  // namespace

#define ROPE_ENTRY(NAME, TYPE)                                                                                           \
    extern "C" void NAME(const void* x, void* out, const void* cos_table, const void* sin_table, std::int64_t batch,   \
                         std::int64_t seq, std::int64_t heads, std::int64_t half, const std::int64_t* x_strides,       \
                         const std::int64_t* out_strides, const std::int64_t* table_strides, int interleaved,          \
                         int threads, int stream) {                                                                     \
        rotate<TYPE>(static_cast<const TYPE::Stored*>(x), static_cast<TYPE::Stored*>(out),                              \
                     static_cast<const TYPE::Math*>(cos_table), static_cast<const TYPE::Math*>(sin_table), batch, seq,  \
                     heads, half, x_strides, out_strides, table_strides, interleaved, threads, stream);                 \
    }

ROPE_ENTRY(rope_rotate_float32, Plain<float>)
ROPE_ENTRY(rope_rotate_float64, Plain<double>)
ROPE_ENTRY(rope_rotate_bfloat16, Bf16)
