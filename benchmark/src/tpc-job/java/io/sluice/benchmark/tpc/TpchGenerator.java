package io.sluice.benchmark.tpc;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Deterministic rows of TPC-H's {@code orders} and {@code lineitem} (plus a skewed key for the skew
 * query) at a scale factor: the same seed gives the same rows, whichever task makes them.
 *
 * <p>Order {@code i} has the sparse key TPC-H uses (8 of every 32 keys), 1 to 7 lines, and every
 * field drawn from a random stream seeded by {@code (seed, i)}; line {@code l} of it from a stream
 * seeded by {@code (seed, i, l)}, so an order's total price and status can be computed without its
 * comments and a line can be made on its own. Orders are cut into {@code partitions} contiguous
 * blocks; lineitem partition {@code p} holds line {@code l} of the orders of block {@code p - l + 1
 * (mod partitions)}, so the lines of one order lie in different partitions and a map-side partial
 * aggregation by order key saves little, as with a table not clustered by order key.
 */
final class TpchGenerator implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final long START_DAY = LocalDate.of(1992, 1, 1).toEpochDay();
  private static final long CURRENT_DAY = LocalDate.of(1995, 6, 17).toEpochDay();
  private static final long END_DAY = LocalDate.of(1998, 12, 31).toEpochDay();
  private static final String[] PRIORITIES = {
    "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"
  };
  private static final String[] INSTRUCTIONS = {
    "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"
  };
  private static final String[] MODES = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

  private final double scale;
  private final long seed;
  private final int partitions;

  TpchGenerator(double scale, long seed, int partitions) {
    if (!(scale > 0)) {
      throw new IllegalArgumentException("scale factor must be positive: " + scale);
    }
    this.scale = scale;
    this.seed = seed;
    this.partitions = partitions;
  }

  long orderCount() {
    return TableLayout.orderCount(scale);
  }

  private long customers() {
    return Math.max(300L, Math.round(150_000L * scale));
  }

  private long parts() {
    return Math.max(1_000L, Math.round(200_000L * scale));
  }

  private long suppliers() {
    return Math.max(100L, Math.round(10_000L * scale));
  }

  /** Keys of the skewed dimension: 1..skewKeys(). */
  int skewKeys() {
    return (int) Math.max(1_000L, Math.round(100_000L * scale));
  }

  /** TPC-H's sparse order keys: the first 8 of every 32. */
  static long orderKey(long index) {
    return (index >>> 3 << 5) + (index & 7) + 1;
  }

  private long blockStart(int block) {
    return orderCount() * block / partitions;
  }

  /** The rows of partition {@code p} of {@code orders}. */
  Iterator<Row> orders(int p) {
    long from = blockStart(p);
    long to = blockStart(p + 1);
    return new Iterator<>() {
      long i = from;

      @Override
      public boolean hasNext() {
        return i < to;
      }

      @Override
      public Row next() {
        if (i >= to) {
          throw new NoSuchElementException();
        }
        return orderRow(i++);
      }
    };
  }

  /** The rows of partition {@code p} of {@code lineitem}. */
  Iterator<Row> lineitems(int p) {
    return new Iterator<>() {
      int line = 1;
      long i = blockStart(Math.floorMod(p, partitions));
      long to = blockStart(Math.floorMod(p, partitions) + 1);
      Row pending = advance();

      private Row advance() {
        while (line <= 7) {
          while (i < to) {
            long index = i++;
            Order o = order(index);
            if (o.lines >= line) {
              return lineRow(o, line);
            }
          }
          line++;
          int block = Math.floorMod(p - line + 1, partitions);
          i = blockStart(block);
          to = blockStart(block + 1);
        }
        return null;
      }

      @Override
      public boolean hasNext() {
        return pending != null;
      }

      @Override
      public Row next() {
        if (pending == null) {
          throw new NoSuchElementException();
        }
        Row r = pending;
        pending = advance();
        return r;
      }
    };
  }

  /** The rows of partition {@code p} of the skewed dimension. */
  Iterator<Row> skewDimension(int p) {
    int from = (int) ((long) skewKeys() * p / partitions) + 1;
    int to = (int) ((long) skewKeys() * (p + 1) / partitions) + 1;
    return new Iterator<>() {
      int key = from;

      @Override
      public boolean hasNext() {
        return key < to;
      }

      @Override
      public Row next() {
        if (key >= to) {
          throw new NoSuchElementException();
        }
        int k = key++;
        SplittableRandom rng = random(-1L - k, 0);
        return RowFactory.create(
            k,
            String.format("Promo#%09d", k),
            cents(rng.nextInt(0, 31)),
            TextPool.phrase(rng, 20, 60));
      }
    };
  }

  private record Order(
      long index, long custKey, long orderDay, int lines, int priority, int clerk) {}

  private Order order(long index) {
    SplittableRandom rng = random(index, 0);
    long cust = 1 + rng.nextLong(customers());
    if (cust % 3 == 0) {
      cust = cust == customers() ? cust - 1 : cust + 1; // TPC-H: a third of customers never order
    }
    long day = START_DAY + rng.nextLong(END_DAY - 151 - START_DAY + 1);
    int lines = 1 + rng.nextInt(7);
    int clerk = 1 + rng.nextInt((int) Math.max(10, Math.round(1_000 * scale)));
    return new Order(index, cust, day, lines, rng.nextInt(PRIORITIES.length), clerk);
  }

  /** Numeric fields of a line, drawn first from the line's stream (comments come after). */
  private final class Line {
    final SplittableRandom rng;
    final long partKey;
    final long suppKey;
    final int quantity;
    final long priceCents;
    final int discount;
    final int tax;
    final long shipDay;
    final long commitDay;
    final long receiptDay;

    Line(Order o, int line) {
      rng = random(o.index, line);
      partKey = 1 + rng.nextLong(parts());
      long s = suppliers();
      suppKey = (partKey + rng.nextInt(4) * (s / 4 + (partKey - 1) / s)) % s + 1;
      quantity = 1 + rng.nextInt(50);
      long retailCents = 90_000 + (partKey / 10) % 20_001 + 100 * (partKey % 1_000);
      priceCents = quantity * retailCents;
      discount = rng.nextInt(11);
      tax = rng.nextInt(9);
      shipDay = o.orderDay + 1 + rng.nextInt(121);
      commitDay = o.orderDay + 30 + rng.nextInt(61);
      receiptDay = shipDay + 1 + rng.nextInt(30);
    }

    long chargeCents() {
      return priceCents * (100 - discount) * (100 + tax) / 10_000;
    }
  }

  private Row orderRow(long index) {
    Order o = order(index);
    long total = 0;
    int shipped = 0;
    for (int l = 1; l <= o.lines; l++) {
      Line line = new Line(o, l);
      total += line.chargeCents();
      if (line.shipDay <= CURRENT_DAY) {
        shipped++;
      }
    }
    String status = shipped == o.lines ? "F" : shipped == 0 ? "O" : "P";
    SplittableRandom rng = random(index, 8);
    return RowFactory.create(
        orderKey(index),
        o.custKey,
        status,
        cents(total),
        LocalDate.ofEpochDay(o.orderDay),
        PRIORITIES[o.priority],
        String.format("Clerk#%09d", o.clerk),
        0,
        TextPool.phrase(rng, 19, 78));
  }

  private Row lineRow(Order o, int l) {
    Line line = new Line(o, l);
    SplittableRandom rng = line.rng;
    String returnFlag = line.receiptDay <= CURRENT_DAY ? (rng.nextBoolean() ? "R" : "A") : "N";
    String lineStatus = line.shipDay > CURRENT_DAY ? "O" : "F";
    return RowFactory.create(
        orderKey(o.index),
        line.partKey,
        line.suppKey,
        l,
        cents(line.quantity * 100L),
        cents(line.priceCents),
        cents(line.discount),
        cents(line.tax),
        returnFlag,
        lineStatus,
        LocalDate.ofEpochDay(line.shipDay),
        LocalDate.ofEpochDay(line.commitDay),
        LocalDate.ofEpochDay(line.receiptDay),
        INSTRUCTIONS[rng.nextInt(INSTRUCTIONS.length)],
        MODES[rng.nextInt(MODES.length)],
        TextPool.phrase(rng, 10, 43),
        skewKey(rng));
  }

  /** 30% of lines share three keys (15%, 10%, 5%); the rest spread evenly over the others. */
  private int skewKey(SplittableRandom rng) {
    int u = rng.nextInt(100);
    if (u < 15) {
      return 1;
    } else if (u < 25) {
      return 2;
    } else if (u < 30) {
      return 3;
    }
    return 4 + rng.nextInt(skewKeys() - 3);
  }

  private static BigDecimal cents(long cents) {
    return BigDecimal.valueOf(cents, 2);
  }

  private SplittableRandom random(long index, int stream) {
    return new SplittableRandom(mix(seed * 0x9E3779B97F4A7C15L ^ mix(index * 9 + stream + 1)));
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
