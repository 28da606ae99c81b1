/* test_fs.h — file-system helpers shared by the tests that make scratch trees. */
#ifndef HDG_TEST_FS_H
#define HDG_TEST_FS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* rm -rf path (links are removed, not followed). */
static inline void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[4096];
            size_t lp = strlen(path), ln = strlen(e->d_name);
            if (lp + ln + 2 > sizeof sub) continue;   /* not made by the tests */
            memcpy(sub, path, lp);
            sub[lp] = '/';
            memcpy(sub + lp + 1, e->d_name, ln + 1);
            rm_tree(sub);
        }
        if (d) closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

#endif
