/* test_fdio.c: the one framing of messages between cuplay's processes
 * (base/fdio: the GPU worker's wire and the compile server use it). */
#include "test.h"
#include "fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

TEST(round_trip)
{
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(fd_msg_send(p[1], 7, "abc", 3, "de", 2, 100) == 0);
	CHECK(fd_msg_send(p[1], 8, NULL, 0, NULL, 0, 100) == 0);
	uint32_t type = 0;
	char *pl = NULL;
	uint64_t len = 0;
	CHECK(fd_msg_recv(p[0], &type, &pl, &len, 100, 0, NULL, 0) == 0);
	CHECK(type == 7 && len == 5 && pl && strcmp(pl, "abcde") == 0);
	free(pl);
	CHECK(fd_msg_recv(p[0], &type, &pl, &len, 100, 0, NULL, 0) == 0);
	CHECK(type == 8 && len == 0 && pl == NULL);
	/* over the limit: not sent */
	errno = 0;
	CHECK(fd_msg_send(p[1], 9, "0123456789", 10, "x", 1, 10) == -1 && errno == EMSGSIZE);
	/* end of input before a message */
	close(p[1]);
	CHECK(fd_msg_recv(p[0], &type, &pl, &len, 100, 0, NULL, 0) == 1);
	close(p[0]);
}

TEST(bad_frames)
{
	int p[2];
	uint32_t type = 0;
	char *pl = NULL;
	uint64_t len = 0;
	/* a header cut short */
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], "\1\0\0\0\5", 5) == 5);
	close(p[1]);
	errno = 0;
	CHECK(fd_msg_recv(p[0], &type, &pl, &len, 100, 0, NULL, 0) == -1 && errno == EPROTO);
	close(p[0]);
	/* a length over the reader's limit */
	CHECK(pipe(p) == 0);
	CHECK(fd_msg_send(p[1], 1, "0123456789", 10, NULL, 0, 100) == 0);
	errno = 0;
	CHECK(fd_msg_recv(p[0], &type, &pl, &len, 5, 0, NULL, 0) == -1 && errno == EPROTO);
	close(p[0]);
	close(p[1]);
	/* a payload cut short */
	CHECK(pipe(p) == 0);
	unsigned char hdr[FD_MSG_HDR] = { 1, 0, 0, 0, 10 };
	CHECK(write(p[1], hdr, sizeof hdr) == (ssize_t)sizeof hdr && write(p[1], "abc", 3) == 3);
	close(p[1]);
	errno = 0;
	CHECK(fd_msg_recv(p[0], &type, &pl, &len, 100, 0, NULL, 0) == -1 && errno == EPROTO && pl == NULL);
	close(p[0]);
}

TEST(stop_and_rest)
{
	int p[2];
	uint32_t type = 0;
	char *pl = NULL;
	uint64_t len = 0;
	volatile sig_atomic_t stop = 1;
	CHECK(pipe(p) == 0);
	/* nothing came: the stop ends the wait */
	errno = 0;
	CHECK(fd_msg_recv(p[0], &type, &pl, &len, 100, 0, &stop, 0) == -1 && errno == EINTR);
	/* a header without its payload: with rest_ns the stop no longer
	 * counts, the rest's deadline does */
	unsigned char hdr[FD_MSG_HDR] = { 1, 0, 0, 0, 4 };
	CHECK(write(p[1], hdr, sizeof hdr) == (ssize_t)sizeof hdr);
	uint64_t t0 = now_ns();
	errno = 0;
	CHECK(fd_msg_recv(p[0], &type, &pl, &len, 100, 0, &stop, 200000000ull) == -1 && errno == ETIMEDOUT);
	CHECK(now_ns() - t0 >= 150000000ull);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	RUN(round_trip);
	RUN(bad_frames);
	RUN(stop_and_rest);
	return test_report("fdio");
}
