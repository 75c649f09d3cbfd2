package dev.bulkdata.benchmarks;

/** The standard 32-byte record as a heap object: what Java users write today. */
public final class Particle implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    float t;
    float px;
    float py;
    float pz;
    float vx;
    float vy;
    float vz;
    float pad;

    Particle(float t) {
        this.t = t;
    }
}
