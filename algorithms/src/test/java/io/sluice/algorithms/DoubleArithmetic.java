package io.sluice.algorithms;

import io.sluice.api.Limit;

/**
 * The rules of docs/algorithms.md computed the way a Lua script computes them: on doubles,
 * with {@code math.floor} for integer division. Every intermediate value is checked to be
 * an integer below 2^53, the range in which doubles are exact.
 */
final class DoubleArithmetic {

    private static final double EXACT_LIMIT = 9_007_199_254_740_992.0;

    private static final double MAX_UNITS = 2_251_799_813_685_248.0;

    /** What a transition reports, as a Lua script would return it. */
    record Outcome(boolean allowed, boolean costExceedsCapacity, double remaining, double resetAfter,
                   double retryAfter, double[] state) {
    }

    private DoubleArithmetic() {
    }

    static Outcome apply(long[] stored, long nowMicros, Limit limit, long cost) {
        double[] state = null;
        if (stored != null) {
            state = new double[stored.length];
            for (int i = 0; i < stored.length; i++) {
                state[i] = exact(stored[i]);
            }
        }
        double t = exact(nowMicros);
        double c = exact(cost);
        double p = exact(limit.permits());
        double b = exact(limit.burst());
        double d = exact(limit.periodMicros());
        switch (limit.algorithm().name()) {
            case "fixed-window":
                return fixedWindow(state, t, p, d, c);
            case "sliding-log":
                return slidingLog(state, t, p, d, c);
            case "sliding-window-counter":
                return slidingWindowCounter(state, t, p, d, c);
            case "token-bucket":
                return tokenBucket(state, t, p, b, d, c);
            case "gcra":
                return gcra(state, t, p, b, d, c);
            default:
                throw new IllegalArgumentException(limit.algorithm().name());
        }
    }

    private static Outcome fixedWindow(double[] s, double t, double p, double d, double c) {
        double tag = 257;
        boolean stored = s != null && s.length == 3 && s[0] == tag;
        double a = stored ? Math.max(t, s[1]) : t;
        double ws = sub(a, mod(a, d));
        double count = stored && s[1] == ws ? s[2] : 0;
        double end = sub(add(ws, d), t);
        if (c > p) {
            return new Outcome(false, true, Math.max(0, sub(p, count)), count > 0 ? end : 0, 0, s);
        }
        if (add(count, c) <= p) {
            return new Outcome(true, false, sub(sub(p, count), c), end, 0, new double[] {tag, ws, add(count, c)});
        }
        return new Outcome(false, false, Math.max(0, sub(p, count)), end, end, s);
    }

    private static Outcome slidingLog(double[] s, double t, double p, double d, double c) {
        double tag = 514;
        // The log as (time, cost) entries and the running total before the first, from
        // format 2 (running totals) or format 1 (costs).
        int n;
        double base;
        double[] times;
        double[] costs;
        if (s != null && s.length >= 2 && s.length % 2 == 0 && s[0] == tag) {
            n = (s.length - 2) / 2;
            base = s[1];
            times = new double[n];
            costs = new double[n];
            for (int k = 0; k < n; k++) {
                times[k] = s[2 + 2 * k];
                costs[k] = sub(s[3 + 2 * k], k == 0 ? base : s[1 + 2 * k]);
            }
        } else if (s != null && s.length % 2 == 1 && s[0] == 513) {
            n = (s.length - 1) / 2;
            base = 0;
            times = new double[n];
            costs = new double[n];
            for (int k = 0; k < n; k++) {
                times[k] = s[1 + 2 * k];
                costs[k] = s[2 + 2 * k];
            }
        } else {
            n = 0;
            base = 0;
            times = new double[0];
            costs = new double[0];
        }
        int first = 0;
        double prior = base;
        while (first < n && times[first] <= sub(t, d)) {
            prior = add(prior, costs[first]);
            first++;
        }
        double used = 0;
        for (int k = first; k < n; k++) {
            used = add(used, costs[k]);
        }
        boolean empty = first == n;
        double last = empty ? 0 : times[n - 1];
        double allExpire = empty ? 0 : sub(add(last, d), t);
        if (c > p) {
            return new Outcome(false, true, Math.max(0, sub(p, used)), allExpire, 0, s);
        }
        if (add(used, c) <= p) {
            double te = empty ? t : Math.max(t, last);
            boolean merge = !empty && te == last;
            double[] next = new double[2 + 2 * (n - first + (merge ? 0 : 1))];
            next[0] = tag;
            next[1] = prior;
            double total = prior;
            for (int k = first; k < n; k++) {
                total = add(total, costs[k]);
                next[2 + 2 * (k - first)] = times[k];
                next[3 + 2 * (k - first)] = total;
            }
            next[next.length - 2] = te;
            next[next.length - 1] = add(total, c);
            if (prior > Math.pow(2, 40)) {
                for (int i = 1; i < next.length; i += 2) {
                    next[i] = sub(next[i], prior);
                }
            }
            return new Outcome(true, false, sub(sub(p, used), c), sub(add(te, d), t), 0, next);
        }
        double freed = 0;
        int k = first;
        while (add(sub(used, freed), c) > p) {
            freed = add(freed, costs[k]);
            k++;
        }
        return new Outcome(false, false, Math.max(0, sub(p, used)), allExpire, sub(add(times[k - 1], d), t), s);
    }

    private static Outcome slidingWindowCounter(double[] s, double t, double p, double d, double c) {
        double tag = 769;
        boolean stored = s != null && s.length == 4 && s[0] == tag;
        double a = stored ? Math.max(t, s[1]) : t;
        double ws = sub(a, mod(a, d));
        double e = sub(a, ws);
        double cur = 0;
        double prev = 0;
        if (stored && s[1] == ws) {
            cur = s[2];
            prev = s[3];
        } else if (stored && s[1] == sub(ws, d)) {
            prev = s[2];
        }
        double step = Math.max(1, div(d, 1_048_576));
        double den = div(d, step);
        double est = add(weighted(prev, e, d, step, den), cur);
        if (c > p) {
            return new Outcome(false, true, Math.max(0, sub(p, est)),
                    swcReset(ws, cur, prev, t, d, step, den), 0, s);
        }
        if (add(est, c) <= p) {
            double next = add(cur, c);
            return new Outcome(true, false, sub(sub(p, est), c), swcReset(ws, next, prev, t, d, step, den), 0,
                    new double[] {tag, ws, next, prev});
        }
        double r = sub(sub(p, c), cur);
        double retryAt = r >= 0
                ? add(ws, Math.max(e, firstFit(prev, r, d, step, den)))
                : add(add(ws, d), firstFit(cur, sub(p, c), d, step, den));
        return new Outcome(false, false, Math.max(0, sub(p, est)), swcReset(ws, cur, prev, t, d, step, den),
                sub(retryAt, t), s);
    }

    private static double weighted(double n, double e, double d, double step, double den) {
        return div(mul(n, div(sub(d, e), step)), den);
    }

    private static double firstFit(double n, double r, double d, double step, double den) {
        if (n == 0) {
            return 0;
        }
        double nmax = div(sub(mul(add(r, 1), den), 1), n);
        if (nmax >= den) {
            return 0;
        }
        return add(sub(d, mul(add(nmax, 1), step)), 1);
    }

    private static double swcReset(double ws, double cur, double prev, double t, double d, double step,
                                   double den) {
        if (cur > 0) {
            return sub(add(add(ws, d), firstFit(cur, 0, d, step, den)), t);
        }
        if (prev > 0) {
            return Math.max(0, sub(add(ws, firstFit(prev, 0, d, step, den)), t));
        }
        return 0;
    }

    /** The exact rate as {@code [tokensPerMicro, scale]}, as BucketRate and common.lua choose it. */
    private static double[] rate(double p, double b, double d) {
        double x = p;
        double y = d;
        while (y != 0) {
            double r = mod(x, y);
            x = y;
            y = r;
        }
        double scale = div(d, x);
        if (scale <= div(MAX_UNITS, b)) {
            return new double[] {div(p, x), scale};
        }
        double interval = div(sub(add(d, p), 1), p);
        return new double[] {1, interval};
    }

    private static double ceilDiv(double a, double b) {
        return div(sub(add(a, b), 1), b);
    }

    private static Outcome tokenBucket(double[] s, double t, double p, double b, double d, double c) {
        double tag = 1026;
        double[] rate = rate(p, b, d);
        double perMicro = rate[0];
        double scale = rate[1];
        double capacity = mul(b, scale);
        double units = capacity;
        double last = t;
        if (s != null && s.length == 3 && (s[0] == tag || s[0] == 1025)) {
            units = s[0] == tag ? Math.min(s[1], capacity) : mul(Math.min(s[1], b), scale);
            last = s[2];
        }
        if (t > last) {
            double elapsed = sub(t, last);
            units = elapsed >= ceilDiv(sub(capacity, units), perMicro) ? capacity : add(units, mul(elapsed, perMicro));
            last = t;
        }
        double lag = sub(last, t);
        if (c > b) {
            return new Outcome(false, true, div(units, scale), bucketReset(units, capacity, perMicro, lag), 0, s);
        }
        double needed = mul(c, scale);
        if (units >= needed) {
            double left = sub(units, needed);
            return new Outcome(true, false, div(left, scale), bucketReset(left, capacity, perMicro, lag), 0,
                    new double[] {tag, left, last});
        }
        return new Outcome(false, false, div(units, scale), bucketReset(units, capacity, perMicro, lag),
                add(lag, ceilDiv(sub(needed, units), perMicro)), s);
    }

    private static double bucketReset(double units, double capacity, double perMicro, double lag) {
        return units == capacity ? 0 : add(lag, ceilDiv(sub(capacity, units), perMicro));
    }

    private static Outcome gcra(double[] s, double t, double p, double b, double d, double c) {
        double tag = 1282;
        double[] rate = rate(p, b, d);
        double perMicro = rate[0];
        double scale = rate[1];
        double tau = mul(b, scale);
        double tat = t;
        double fraction = 0;
        if (s != null && s.length == 3 && s[0] == tag) {
            tat = s[1];
            fraction = Math.max(0, Math.min(s[2], sub(perMicro, 1)));
        } else if (s != null && s.length == 2 && s[0] == 1281) {
            tat = s[1];
        }
        if (tat < t) {
            tat = t;
            fraction = 0;
        }
        double ahead = sub(tat, t);
        double tauMicros = div(tau, perMicro);
        if (ahead > tauMicros) {
            double resetAfter = add(ahead, fraction > 0 ? 1 : 0);
            if (c > b) {
                return new Outcome(false, true, 0, resetAfter, 0, s);
            }
            double beyond = sub(add(fraction, mul(c, scale)), sub(tau, mul(tauMicros, perMicro)));
            return new Outcome(false, false, 0, resetAfter, add(sub(ahead, tauMicros), ceilDiv(beyond, perMicro)), s);
        }
        double owed = add(mul(ahead, perMicro), fraction);
        double remaining = div(Math.max(0, sub(tau, owed)), scale);
        if (c > b) {
            return new Outcome(false, true, remaining, ceilDiv(owed, perMicro), 0, s);
        }
        double next = add(owed, mul(c, scale));
        if (next <= tau) {
            return new Outcome(true, false, div(sub(tau, next), scale), ceilDiv(next, perMicro), 0,
                    new double[] {tag, add(t, div(next, perMicro)), mod(next, perMicro)});
        }
        return new Outcome(false, false, remaining, ceilDiv(owed, perMicro), ceilDiv(sub(next, tau), perMicro), s);
    }

    private static double add(double a, double b) {
        return exact(a + b);
    }

    private static double sub(double a, double b) {
        return exact(a - b);
    }

    private static double mul(double a, double b) {
        return exact(a * b);
    }

    private static double div(double a, double b) {
        return exact(Math.floor(exact(a) / exact(b)));
    }

    private static double mod(double a, double b) {
        return sub(a, mul(div(a, b), b));
    }

    private static double exact(double value) {
        if (!(Math.abs(value) < EXACT_LIMIT) || value != Math.rint(value)) {
            throw new AssertionError("intermediate value not an integer below 2^53: " + value);
        }
        return value;
    }
}
