/* SPDX-License-Identifier: Apache-2.0 */
/* Least squares in relative error with no cost negative, for the block mover's three costs. */
#include "advise/blocks_fit.h"

#include <math.h>
#include <string.h>

/* Solve the k x k system a x = b in place by elimination with partial pivoting; 0 when it is
 * singular (two columns that say the same at every point). */
static int zc__solve(double a[ZC__BLK_COLS][ZC__BLK_COLS], double b[ZC__BLK_COLS], size_t k,
                     double x[ZC__BLK_COLS])
{
    for (size_t i = 0; i < k; i++) {
        size_t p = i;
        for (size_t r = i + 1; r < k; r++)
            if (fabs(a[r][i]) > fabs(a[p][i]))
                p = r;
        if (!(fabs(a[p][i]) > 1e-12))
            return 0;
        for (size_t c = 0; c < k; c++) {
            double t = a[i][c];
            a[i][c] = a[p][c];
            a[p][c] = t;
        }
        double t = b[i];
        b[i] = b[p];
        b[p] = t;
        for (size_t r = 0; r < k; r++) {
            if (r == i)
                continue;
            double f = a[r][i] / a[i][i];
            for (size_t c = 0; c < k; c++)
                a[r][c] -= f * a[i][c];
            b[r] -= f * b[i];
        }
    }
    for (size_t i = 0; i < k; i++)
        x[i] = b[i] / a[i][i];
    return 1;
}

/* The weighted fit on the columns cols (k of them), with column 2 held at fixed_c2 when that is
 * above 0 (cols then leave it out): each row divided by its time, so that the target is 1
 * everywhere (less the held column's share) and a residual is a relative error. Columns are
 * scaled to a largest value of 1 first: calls, blocks and kilobytes differ by five orders of
 * magnitude. */
static int zc__fit_cols(const zc__blk_obs *obs, size_t n, const size_t *cols, size_t k,
                        double fixed_c2, double c[ZC__BLK_COLS])
{
    double scale[ZC__BLK_COLS] = {0.0}, a[ZC__BLK_COLS][ZC__BLK_COLS], b[ZC__BLK_COLS],
           x[ZC__BLK_COLS];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < n; i++)
            scale[j] = fmax(scale[j], obs[i].x[cols[j]] / obs[i].us);
    for (size_t j = 0; j < k; j++)
        if (!(scale[j] > 0.0))
            return 0;
    for (size_t i = 0; i < n; i++) {
        double row[ZC__BLK_COLS], target = 1.0 - obs[i].x[2] * fixed_c2 / obs[i].us;
        for (size_t j = 0; j < k; j++)
            row[j] = obs[i].x[cols[j]] / obs[i].us / scale[j];
        for (size_t j = 0; j < k; j++) {
            b[j] += row[j] * target;
            for (size_t m = 0; m < k; m++)
                a[j][m] += row[j] * row[m];
        }
    }
    if (k > 0 && !zc__solve(a, b, k, x))
        return 0;
    memset(c, 0, ZC__BLK_COLS * sizeof *c);
    for (size_t j = 0; j < k; j++)
        c[cols[j]] = x[j] / scale[j];
    if (fixed_c2 > 0.0)
        c[2] = fixed_c2;
    return 1;
}

static double zc__residual(const zc__blk_obs *obs, size_t n, const double c[ZC__BLK_COLS])
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double pred = 0.0;
        for (size_t j = 0; j < ZC__BLK_COLS; j++)
            pred += obs[i].x[j] * c[j];
        sum += (pred - obs[i].us) / obs[i].us * ((pred - obs[i].us) / obs[i].us);
    }
    return sum;
}

int zc__blk_lsq(const zc__blk_obs *obs, size_t n, const int fitted[ZC__BLK_COLS], double c2_min,
                double c_p[ZC__BLK_COLS])
{
    double best = INFINITY;
    /* Every subset of the first two columns (bit j: column j fitted), the bandwidth free and,
     * when it has a floor, held at it: each bound either binds or does not, so the best of
     * these that keeps every bound is the exact answer. */
    for (unsigned set = 0; set < 8u; set++) {
        const int held = (set & 4u) != 0;
        size_t cols[ZC__BLK_COLS], k = 0;
        int skip = held && !(c2_min > 0.0);
        for (size_t j = 0; j < 2; j++) {
            if (set & (1u << j)) {
                skip |= !fitted[j];
                cols[k++] = j;
            }
        }
        if (!held)
            cols[k++] = 2;
        double c[ZC__BLK_COLS];
        if (skip || k > n || !zc__fit_cols(obs, n, cols, k, held ? c2_min : 0.0, c))
            continue;
        if (c[0] < 0.0 || c[1] < 0.0 || !(c[2] > 0.0) || c[2] < c2_min)
            continue;
        double r = zc__residual(obs, n, c);
        if (r < best) {
            best = r;
            memcpy(c_p, c, sizeof c);
        }
    }
    return isfinite(best);
}
