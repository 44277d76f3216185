/* The 16-bit floating types on the host: IEEE binary16 (gshmem_half) and
 * bfloat16, to and from float, rounding to nearest even (host reductions
 * compute in float and round once per combination, as the GPU's do). */
#ifndef GSHMEMI_CORE_HALF_H
#define GSHMEMI_CORE_HALF_H

#include <stdint.h>
#include <string.h>

static inline float gshmemi_bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static inline uint32_t gshmemi_float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float gshmemi_half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) /* inf, nan */
        return gshmemi_bits_float(sign | 0x7f800000u | (man << 13));
    if (exp != 0)
        return gshmemi_bits_float(sign | ((exp + 112) << 23) | (man << 13));
    /* zero and subnormals: man * 2^-24 */
    const float v = (float)man * (1.0f / 16777216.0f);
    return sign ? -v : v;
}

static inline uint16_t gshmemi_float_to_half(float f)
{
    const uint32_t u = gshmemi_float_bits(f), sign = (u >> 16) & 0x8000;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* inf, nan (kept quiet) */
        return (uint16_t)(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 | ((abs >> 13) & 0x3ff) : 0));
    if (abs >= 0x477ff000u) /* rounds to at least 65520: inf */
        return (uint16_t)(sign | 0x7c00);
    if (abs < 0x38800000u) { /* below 2^-14: subnormal or zero, in units of 2^-24 */
        const float v = gshmemi_bits_float(abs) * 16777216.0f; /* exact: a power-of-two scale */
        uint32_t q = (uint32_t)v;
        const float rest = v - (float)q;
        if (rest > 0.5f || (rest == 0.5f && (q & 1)))
            q++;
        return (uint16_t)(sign | q);
    }
    /* normal: 13 mantissa bits dropped, rounded to nearest even */
    const uint32_t mant = abs + 0xfffu + ((abs >> 13) & 1);
    return (uint16_t)(sign | ((mant - 0x38000000u) >> 13));
}

static inline float gshmemi_bfloat16_to_float(uint16_t b)
{
    return gshmemi_bits_float((uint32_t)b << 16);
}

static inline uint16_t gshmemi_float_to_bfloat16(float f)
{
    const uint32_t u = gshmemi_float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* nan: kept quiet */
        return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

#endif
