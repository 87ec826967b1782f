/*
 * mcjoin: a host's SA MCMemberRecord joins and leaves, over libibumad (run under ibsim's
 * libumad2sim.so with SIM_HOST naming the host). Reads lines from stdin:
 *   join N      SET    MCMemberRecord, full member, MGID ff15:0001::N (N < 2^32)
 *   leave N     DELETE MCMemberRecord of the same
 * and prints one line per request:
 *   join N mlid 0xC000 status 0x0000 usec 812
 * (status is the SA MAD status; usec the request's round trip). Exits 1 when a request got
 * no answer or a non-zero status, after trying the rest.
 *
 * Part of mcast-route's OpenSM check (mcast-route/opensm/run.sh). MIT OR Apache-2.0.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <infiniband/umad.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAD_SIZE 256
#define SA_CLASS 0x03
#define SA_CLASS_VERSION 2
#define METHOD_SET 0x02
#define METHOD_DELETE 0x15
#define ATTR_MCMEMBER_RECORD 0x0038
#define QP1_QKEY 0x80010000u
/* Component mask: MGID, PortGID, Q_Key, TClass, P_Key, SL, FlowLabel, JoinState. */
#define COMP_MASK ((1ull << 0) | (1ull << 1) | (1ull << 2) | (1ull << 6) | (1ull << 7) | \
                   (1ull << 12) | (1ull << 13) | (1ull << 16))
#define SA_DATA 56 /* the record's offset in the MAD */
#define TIMEOUT_MS 2000
#define RETRIES 3

static void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }

static long usec_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000000L + (t1.tv_nsec - t0->tv_nsec) / 1000L;
}

int main(void)
{
	umad_port_t port;
	int portid, agent, failed = 0;
	uint64_t tid = 1;
	char line[128];
	void *umad;

	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "mcjoin: no umad port\n");
		return 2;
	}
	portid = umad_open_port(NULL, 0);
	if (portid < 0) {
		fprintf(stderr, "mcjoin: cannot open the umad port\n");
		return 2;
	}
	agent = umad_register(portid, SA_CLASS, SA_CLASS_VERSION, 0, NULL);
	umad = umad_alloc(1, umad_size() + MAD_SIZE);
	if (agent < 0 || !umad) {
		fprintf(stderr, "mcjoin: cannot register an SA agent\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char op[16];
		unsigned long n;
		uint8_t *mad, *rec;
		struct timespec t0;
		int len = MAD_SIZE, leave;

		if (sscanf(line, "%15s %lu", op, &n) != 2 || n > 0xffffffffUL)
			continue;
		leave = !strcmp(op, "leave");
		if (!leave && strcmp(op, "join"))
			continue;
		memset(umad, 0, umad_size() + MAD_SIZE);
		mad = umad_get_mad(umad);
		mad[0] = 1; /* base version */
		mad[1] = SA_CLASS;
		mad[2] = SA_CLASS_VERSION;
		mad[3] = leave ? METHOD_DELETE : METHOD_SET;
		put64(mad + 8, tid++);
		put16(mad + 16, ATTR_MCMEMBER_RECORD);
		put64(mad + 48, COMP_MASK);
		rec = mad + SA_DATA;
		rec[0] = 0xff;
		rec[1] = 0x15; /* transient, site-local */
		put16(rec + 2, 0x0001);
		put32(rec + 12, (uint32_t)n);
		put64(rec + 16, 0xfe80000000000000ull); /* PortGID: the default prefix ... */
		memcpy(rec + 24, &port.port_guid, 8);     /* ... and our port GUID (network order) */
		put32(rec + 32, 0x0b1b);                  /* Q_Key */
		put16(rec + 40, 0xffff);                  /* P_Key: the default partition */
		rec[48] = 0x01;                           /* JoinState: full member */
		umad_set_addr(umad, port.sm_lid, 1, 0, QP1_QKEY);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (umad_send(portid, agent, umad, MAD_SIZE, TIMEOUT_MS, RETRIES) < 0 ||
		    umad_recv(portid, umad, &len, TIMEOUT_MS * (RETRIES + 1)) < 0 ||
		    umad_status(umad)) {
			printf("%s %lu no-answer\n", op, n);
			failed = 1;
			continue;
		}
		mad = umad_get_mad(umad);
		printf("%s %lu mlid 0x%04X status 0x%04X usec %ld\n", op, n,
		       get16(mad + SA_DATA + 36), get16(mad + 4), usec_since(&t0));
		if (get16(mad + 4))
			failed = 1;
		fflush(stdout);
	}
	umad_unregister(portid, agent);
	umad_close_port(portid);
	return failed;
}
