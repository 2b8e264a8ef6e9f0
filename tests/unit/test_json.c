/* test_json.c: JSON strings written, a flat object read (the protocol's
 * lines), a table and code as HTML. */
#include "test.h"
#include "json.h"
#include "jtree.h"
#include "report.h"

TEST(strings_out)
{
	sbuf b = {0};
	json_str(&b, "a \"q\" \\ \n\t\x01 \xc3\xa9");
	CHECK_STREQ(b.s, "\"a \\\"q\\\" \\\\ \\n\\t\\u0001 \xc3\xa9\"");
	sb_free(&b);
	json_strn(&b, "ab\0cd", 5);
	CHECK_STREQ(b.s, "\"ab\\u0000cd\"");
	sb_free(&b);
}

TEST(object_in)
{
	jfield *f;
	int n;
	char *err = NULL;
	CHECK(json_object(" {\"id\": \"7\", \"type\":\"run\", \"code\": \"use x\\nrun \\\"a\\\" \\u00e9\\ud83d\\ude00\","
	                  " \"cursor\": 12, \"ok\": true, \"none\": null} ", &f, &n, &err) == 0);
	CHECK(n == 6);
	CHECK_STREQ(jfield_str(f, n, "id", ""), "7");
	CHECK_STREQ(jfield_str(f, n, "code", ""), "use x\nrun \"a\" \xc3\xa9\xf0\x9f\x98\x80");
	CHECK(jfield_num(f, n, "cursor", -1) == 12);
	CHECK_STREQ(jfield_str(f, n, "cursor", "def"), "def"); /* a number is not a string */
	CHECK_STREQ(jfield_str(f, n, "absent", "def"), "def");
	CHECK(jfield_num(f, n, "ok", -1) == -1);
	jfields_free(f, n);
	CHECK(json_object("{}", &f, &n, &err) == 0 && n == 0);
	jfields_free(f, n);
}

TEST(object_refused)
{
	const char *bad[] = {
		"", "[1]", "{", "{\"a\" 1}", "{\"a\": 1,}", "{\"a\": {\"b\": 1}}", "{\"a\": [1]}",
		"{\"a\": \"x}", "{\"a\": 1} x", "{a: 1}", "{\"a\": \"\\q\"}", "{\"a\": 1 \"b\": 2}",
		"{\"a\": \"tab\there\"}", "{\"a\": nope}", "{\"a\": nan}", "{\"a\": inf}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		jfield *f = NULL;
		int n = -1;
		char *err = NULL;
		int rc = json_object(bad[i], &f, &n, &err);
		CHECK(rc == -1 && err && strncmp(err, "not a JSON object: ", 19) == 0 && !f && n == 0);
		if (rc != -1)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
		free(err);
	}
}

/* a whole document as a tree: the class board's replies */
TEST(tree_in)
{
	const char *text = " {\"id\": 7, \"state\": \"done\", \"result\": {\"status\": \"ok\", \"median_ms\": 0.25,"
	                  " \"checks\": [{\"name\": \"a\\u00e9\", \"ok\": true}, {\"ok\": false}]}, \"rank\": null,"
	                  " \"s\": \"\\ud83d\\ude00\\n\", \"e\": [], \"o\": {}} ";
	jt t;
	char *err = NULL;
	CHECK(jt_parse(text, strlen(text), &t, &err) == 0 && !err);
	CHECK(t.kind == JT_OBJ && t.n == 7);
	CHECK(jt_num(&t, "id", -1) == 7);
	CHECK_STREQ(jt_str(&t, "state", ""), "done");
	const jt *res = jt_get(&t, "result");
	CHECK(res && jt_num(res, "median_ms", 0) == 0.25);
	const jt *ck = jt_get(res, "checks");
	CHECK(ck && ck->kind == JT_ARR && ck->n == 2);
	CHECK(ck && jt_num(&ck->v[0], "ok", -1) == 1 && jt_num(&ck->v[1], "ok", -1) == 0);
	CHECK_STREQ(ck ? jt_str(&ck->v[0], "name", "") : "", "a\xc3\xa9");
	CHECK(jt_get(&t, "rank")->kind == JT_NULL);
	CHECK(jt_num(&t, "rank", -5) == -5);
	CHECK_STREQ(jt_str(&t, "s", ""), "\xf0\x9f\x98\x80\n");
	CHECK(jt_get(&t, "e")->n == 0 && jt_get(&t, "o")->kind == JT_OBJ);
	CHECK(!jt_get(&t, "absent") && !jt_get(res ? jt_get(res, "status") : NULL, "x"));
	jt_free(&t);
	const char *bad[] = { "", "{", "[1,]", "{\"a\" 1}", "{\"a\": 1,}", "[1] 2", "\"x", "nan", "[1e999]",
	                      "{\"a\": \"\\q\"}", "[\"\t\"]", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err = NULL;
		int rc = jt_parse(bad[i], strlen(bad[i]), &t, &err);
		CHECK(rc == -1 && err && strncmp(err, "not JSON: ", 10) == 0 && t.n == 0 && !t.v);
		if (rc != -1)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
		free(err);
	}
}

TEST(table_as_html)
{
	const char *head[] = { "kernel", "median", "raw", "empty" };
	table t;
	table_init(&t, 4, head, "lrrl");
	table_col(&t, 1, "median_ms", U_MS, COL_BOTH);
	table_col(&t, 2, "raw", U_PLAIN, COL_RAW);
	int r = table_row(&t);
	table_set(&t, r, 0, "a<b> & \"c\"");
	table_num(&t, r, 1, 0.194);
	table_num(&t, r, 2, 3);
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	table_html(&t, m);
	fclose(m);
	CHECK_STREQ(s, "<table class=\"cuplay\">\n<thead><tr><th style=\"text-align:left\">kernel</th>"
	               "<th style=\"text-align:right\">median</th></tr></thead>\n<tbody>\n"
	               "<tr><td style=\"text-align:left\">a&lt;b&gt; &amp; &quot;c&quot;</td>"
	               "<td style=\"text-align:right\">194 us</td></tr>\n</tbody>\n</table>\n");
	free(s);
	table_free(&t);
}

TEST(code_as_html)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	code_html("// a <b>\n\t.reg .pred %p<2>;\n  /*0010*/  MOV R1, c[0x0][0x28] ; // x & y\n", m);
	fclose(m);
	CHECK_STREQ(s, "<pre class=\"cuplay-code\"><span style=\"color:#6a737d\">// a &lt;b&gt;</span>\n"
	               "\t<span style=\"color:#a31515\">.reg</span> .pred %p&lt;2&gt;;\n"
	               "  <span style=\"color:#6a737d\">/*0010*/</span>  <b>MOV</b> R1, c[0x0][0x28] ; "
	               "<span style=\"color:#6a737d\">// x &amp; y</span>\n</pre>\n");
	free(s);
}

TEST(object_nested_in)
{
	jfield *f = NULL;
	int n = 0;
	char *err = NULL;
	const char *line = "{\"status\":\"ok\",\"median_ms\":1.5,\"checks\":[{\"name\":\"a]\\\"\",\"ok\":true}],"
	                   "\"o\":{\"x\":[1,2]},\"gpu\":\"H200\"}";
	CHECK(json_object_nested(line, &f, &n, &err) == 0 && n == 5);
	CHECK_STREQ(jfield_str(f, n, "status", ""), "ok");
	CHECK(jfield_num(f, n, "median_ms", 0) == 1.5);
	CHECK_STREQ(f[2].jval, "[{\"name\":\"a]\\\"\",\"ok\":true}]");
	CHECK(f[2].is_str == 0 && jfield_num(f, n, "checks", -1) == -1);
	CHECK_STREQ(f[3].jval, "{\"x\":[1,2]}");
	CHECK_STREQ(jfield_str(f, n, "gpu", ""), "H200");
	jfields_free(f, n);
	/* the flat reader still refuses them; unclosed or crossed ones are refused */
	CHECK(json_object(line, &f, &n, &err) == -1);
	free(err);
	static const char *const bad[] = { "{\"a\":[1,2}", "{\"a\":[", "{\"a\":{\"b\":]}", "{\"a\":[\"]}" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err = NULL;
		CHECK(json_object_nested(bad[i], &f, &n, &err) == -1 && err != NULL);
		free(err);
	}
}

int main(void)
{
	RUN(strings_out);
	RUN(object_nested_in);
	RUN(object_in);
	RUN(object_refused);
	RUN(tree_in);
	RUN(table_as_html);
	RUN(code_as_html);
	return test_report("json");
}
